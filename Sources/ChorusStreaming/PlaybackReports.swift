import ChorusFiles

/// Carries "these samples were played" from a sink's threads and callbacks to the pipeline's task.
///
/// The pipeline suspends in `next()` while its buffer is full; the sink's next report resumes it,
/// exactly once: the waiting continuation is taken out under the lock by whichever of a report or
/// a cancellation comes first.
final class PlaybackReports: Sendable {
    private let state = Locked(State())

    private struct State {
        var unread = 0
        var waiter: CheckedContinuation<Int, any Error>?
    }

    /// Records `count` samples played; called by sinks from any thread.
    func add(_ count: Int) {
        let resume: (CheckedContinuation<Int, any Error>, Int)? = state.withLock { state in
            state.unread += count
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.unread = 0 }
            return (waiter, state.unread)
        }
        if let (waiter, total) = resume { waiter.resume(returning: total) }
    }

    /// Samples reported since the last read, without waiting.
    func takeUnread() -> Int {
        state.withLock { state in
            defer { state.unread = 0 }
            return state.unread
        }
    }

    /// Samples reported since the last read, waiting for a report if there was none.
    /// Throws `CancellationError` if the task is cancelled while waiting.
    func next() async throws -> Int {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Int, any Error>) in
                let ready: Result<Int, any Error>? = state.withLock { state in
                    if state.unread > 0 {
                        defer { state.unread = 0 }
                        return .success(state.unread)
                    }
                    // The cancellation handler may have run before the waiter was stored.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = waiter
                    return nil
                }
                if let ready { waiter.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
