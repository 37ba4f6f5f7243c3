import Foundation

/// A clock `speed` times faster than `ContinuousClock`: a `ClockedNullSink` on it plays minutes of audio
/// in seconds while still pacing itself, as a backpressure test needs.
public struct ScaledClock: Clock {
    /// Its offset is scaled time since the clock was made.
    public typealias Instant = TestClockInstant

    /// How many times faster than real time it runs.
    public let speed: Double
    private let start = ContinuousClock.now

    public init(speed: Double) { self.speed = speed }

    public var now: Instant { Instant(offset: start.duration(to: .now) * speed) }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let wait = now.duration(to: deadline) / speed
        if wait > .zero { try await Task.sleep(for: wait) } else { try Task.checkCancellation() }
    }
}
