import Foundation

/// Speech tokens handed from the LLM, drawing them on a thread of its own, to the streaming side that
/// turns them into audio, so the two stages overlap as upstream's `llm_job` thread and `token2wav` do.
///
/// `@unchecked Sendable`: every field is read and written under `condition`.
final class TokenRelay: @unchecked Sendable {
    private let condition = NSCondition()
    private var tokens: [Int] = []
    private var finished = false
    private var failure: (any Error)?
    private var stopped = false

    /// Called by the LLM with each token; throws once the consumer has stopped, which ends the LLM's loop.
    func push(_ token: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        if stopped { throw CancellationError() }
        tokens.append(token)
        condition.signal()
    }

    /// Called by the LLM when it is done, with the error that ended it, if any.
    func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Tells the LLM to stop at its next token.
    func stop() {
        condition.lock()
        stopped = true
        condition.unlock()
    }

    /// The tokens past the first `count`, waiting for at least one; nil once the LLM has finished and all
    /// were taken. Rethrows the LLM's error as soon as it is known. Every 20 ms of waiting it asks
    /// `isCancelled` and throws `CancellationError` when it says so.
    func tokens(after count: Int, isCancelled: () -> Bool) throws -> [Int]? {
        condition.lock()
        defer { condition.unlock() }
        while tokens.count == count && !finished {
            if isCancelled() { throw CancellationError() }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.02))
        }
        if let failure { throw failure }
        return tokens.count > count ? Array(tokens[count...]) : nil
    }

    /// Blocks until the LLM has finished.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
