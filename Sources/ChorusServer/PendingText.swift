import Foundation

/// The sentences a stream-input session has read from its client and not yet given to the engine, in
/// order, with a bound on how much text waits: `put` returns only once less than `limit` bytes wait, so
/// the session reads its client's next message only then. A client that writes faster than the engine
/// speaks is held back by its own socket instead of filling the server's memory (before, every
/// sentence went into an unbounded stream, as many as the client sent).
///
/// One writer (the loop reading the socket) and one reader (the task speaking) at a time. `finish()`
/// ends the text: the reader gets what waits, then nil; a waiting writer returns. Cancelling a waiting
/// task ends its wait (the reader then gets nil).
final class PendingText: @unchecked Sendable {
    /// Bytes of text (UTF-8) that may wait before `put` holds its caller back.
    let limit: Int
    private let lock = NSLock()
    private var sentences: [String] = []
    private var first = 0
    private var bytes = 0
    private var finished = false
    private var reader: CheckedContinuation<String?, Never>?
    private var writer: CheckedContinuation<Void, Never>?

    init(limit: Int) {
        precondition(limit > 0, "some text must be allowed to wait")
        self.limit = limit
    }

    /// Bytes of text waiting now.
    var waiting: Int { lock.withLock { bytes } }

    /// Sentences held, taken ones not yet dropped included.
    var held: Int { lock.withLock { sentences.count } }

    /// Adds a sentence (dropped after `finish()`), then waits until less than `limit` bytes wait.
    func put(_ sentence: String) async {
        let taker: CheckedContinuation<String?, Never>? = lock.withLock {
            guard !finished else { return nil }
            if let reader {
                self.reader = nil
                return reader
            }
            sentences.append(sentence)
            bytes += sentence.utf8.count
            return nil
        }
        if let taker {
            taker.resume(returning: sentence)
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits: Bool = lock.withLock {
                    guard bytes >= limit, !finished, !Task.isCancelled else { return false }
                    writer = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { () -> CheckedContinuation<Void, Never>? in
                defer { writer = nil }
                return writer
            }?.resume()
        }
    }

    /// The next sentence, waiting for one; nil once the text is finished and all of it taken.
    func next() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                var roomMade: CheckedContinuation<Void, Never>?
                let sentence: String?? = lock.withLock {
                    if first < sentences.count {
                        let sentence = sentences[first]
                        first += 1
                        bytes -= sentence.utf8.count
                        // Taken sentences are dropped once they are half the array, not only when it
                        // empties: a client that keeps text waiting never lets it empty.
                        if first * 2 >= sentences.count {
                            sentences.removeFirst(first)
                            first = 0
                        }
                        if bytes < limit {
                            roomMade = writer
                            writer = nil
                        }
                        return .some(sentence)
                    }
                    if finished || Task.isCancelled { return .some(nil) }
                    reader = continuation
                    return .none
                }
                roomMade?.resume()
                if let sentence { continuation.resume(returning: sentence) }
            }
        } onCancel: {
            lock.withLock { () -> CheckedContinuation<String?, Never>? in
                defer { reader = nil }
                return reader
            }?.resume(returning: nil)
        }
    }

    /// Ends the text: nothing more is added, the reader gets what waits and then nil, a waiting writer returns.
    func finish() {
        let (taker, putter): (CheckedContinuation<String?, Never>?, CheckedContinuation<Void, Never>?) = lock.withLock {
            finished = true
            defer {
                reader = nil
                writer = nil
            }
            return (reader, writer)
        }
        taker?.resume(returning: nil)
        putter?.resume()
    }
}
