import ChorusFiles

/// `body`'s result, or `DeadlineExceeded` when it has not ended within `seconds`: a deadline for a hang (a
/// deadlock, a lost wake-up, a bound undone), not a timing check, so make it generous.
///
/// On the deadline `body` is cancelled and left behind, not waited for: a task group would wait for it, and work
/// that ignores cancellation (a continuation never resumed) would hang the test all the same. Cancelling the
/// caller cancels `body`, whose error (a `CancellationError`, say) is then thrown here.
///
/// ```swift
/// let response = try await withDeadline("the 413 before any audio", seconds: 120) {
///     try await client.execute(uri: "/v1/audio/speech", method: .post, body: body)
/// }
/// ```
public func withDeadline<T: Sendable>(_ what: String, seconds: Double,
                                      _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = FirstOutcome<T>()
    let work = Task {
        do { outcome.settle(.success(try await body())) } catch { outcome.settle(.failure(error)) }
    }
    let deadline = Task {
        guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
        outcome.settle(.failure(DeadlineExceeded(what: what, seconds: seconds)))
    }
    defer {
        work.cancel()
        deadline.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { outcome.wait($0) }
    } onCancel: {
        work.cancel()
    }
}

/// What `withDeadline` throws when its work has not ended in time.
public struct DeadlineExceeded: Error, Equatable, CustomStringConvertible {
    /// What was waited for, as the caller named it.
    public let what: String
    /// The deadline, in seconds.
    public let seconds: Double

    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    public var description: String {
        let shown = seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
        return "gave up after \(shown) s: \(what)"
    }
}

/// The first of the work's result and the deadline, handed to the one caller waiting for it.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let state = Locked<(result: Result<T, any Error>?, waiting: CheckedContinuation<T, any Error>?)>((nil, nil))

    /// Keeps `result` unless one came first, and resumes the caller if it is waiting.
    func settle(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(with: result)
    }

    /// Resumes `continuation` with the first result, now or when it comes.
    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let result = state.withLock { state -> Result<T, any Error>? in
            if state.result == nil { state.waiting = continuation }
            return state.result
        }
        if let result { continuation.resume(with: result) }
    }
}
