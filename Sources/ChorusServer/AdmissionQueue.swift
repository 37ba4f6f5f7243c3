import ChorusFiles
import ChorusModels
import Foundation
import ChorusStreaming

/// A bounded queue per engine: it admits a request while fewer than `limit` are running or waiting on
/// that engine, and refuses the next with a wait to suggest. The engines run one model call at a time
/// (their `RunLimit`), so admitted requests wait their turn there, suspended.
final class AdmissionQueue: Sendable {
    let limit: Int
    private struct State {
        var held: [String: Int] = [:]
        /// Mean seconds a request held its place, per engine (exponentially weighted).
        var meanSeconds: [String: Double] = [:]
    }
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A place in `engine`'s queue, given back when the ticket is released or dropped; throws a 429
    /// `APIError` with Retry-After when the queue is full.
    func admit(_ engine: String) throws -> AdmissionTicket {
        let refused: Int? = state.withLock { state in
            let held = state.held[engine, default: 0]
            guard held < limit else {
                // Wait about as long as one request takes, times the requests ahead per place freed.
                let mean = state.meanSeconds[engine] ?? 1
                return max(1, Int((mean * Double(held) / Double(limit)).rounded(.up)))
            }
            state.held[engine] = held + 1
            return nil
        }
        if let refused { throw APIError.queueFull(engine: engine, limit: limit, retryAfter: refused) }
        return AdmissionTicket(queue: self, engine: engine)
    }

    /// Requests running or waiting on `engine`.
    func depth(of engine: String) -> Int {
        state.withLock { $0.held[engine, default: 0] }
    }

    fileprivate func release(_ engine: String, heldFor seconds: Double) {
        state.withLock { state in
            state.held[engine, default: 1] -= 1
            let previous = state.meanSeconds[engine] ?? seconds
            state.meanSeconds[engine] = previous * 0.8 + seconds * 0.2
        }
    }
}

/// One admitted request's place in its engine's queue. Released once, explicitly or when the last
/// reference goes (a response that was never written).
final class AdmissionTicket: Sendable {
    private let queue: AdmissionQueue
    let engine: String
    private let start = ContinuousClock.now
    private let released = Locked(false)

    fileprivate init(queue: AdmissionQueue, engine: String) {
        self.queue = queue
        self.engine = engine
    }

    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        let elapsed = ContinuousClock.now - start
        queue.release(engine, heldFor: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    deinit { release() }
}
