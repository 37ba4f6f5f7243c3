import Foundation

/// A clock that moves only when told to, for testing code that sleeps (a `ClockedNullSink` playing
/// at real-time speed, a retry back-off) without waiting in real time.
public final class ManualClock: Clock, @unchecked Sendable {
    public typealias Instant = TestClockInstant

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: (deadline: Instant, waiter: CheckedContinuation<Void, any Error>)] = [:]

    /// A clock at offset zero.
    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if deadline <= current {
                    lock.unlock()
                    waiter.resume()
                } else if Task.isCancelled {
                    lock.unlock()
                    waiter.resume(throwing: CancellationError())
                } else {
                    sleepers[id] = (deadline, waiter)
                    lock.unlock()
                }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.waiter.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
            current = current.advanced(by: duration)
            let ready = sleepers.filter { $0.value.deadline <= current }
            for key in ready.keys { sleepers.removeValue(forKey: key) }
            return ready.values.map(\.waiter)
        }
        for waiter in due { waiter.resume() }
    }

    /// Runs `operation` while a helper task keeps moving the clock forward by `step` every
    /// millisecond of real time, so what sleeps on this clock (a clocked sink) makes progress.
    public func advancing<T: Sendable>(
        by step: Duration = .milliseconds(50), _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        let driver = Task {
            while !Task.isCancelled {
                advance(by: step)
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { driver.cancel() }
        return try await operation()
    }
}
