/// A clock whose sleeps end at once (after a yield), so a clocked sink plays as fast as it is fed.
public struct ImmediateClock: Clock {
    public typealias Instant = TestClockInstant

    public init() {}

    public var now: Instant { Instant(offset: .zero) }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        await Task.yield()
    }
}
