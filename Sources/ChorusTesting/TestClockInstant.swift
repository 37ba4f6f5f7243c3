/// An instant of the test clocks (`ManualClock`, `ScaledClock`, `ImmediateClock`): time since the clock was made.
public struct TestClockInstant: InstantProtocol {
    /// Time since the clock was made.
    public var offset: Duration

    public init(offset: Duration) { self.offset = offset }

    public func advanced(by duration: Duration) -> TestClockInstant { TestClockInstant(offset: offset + duration) }
    public func duration(to other: TestClockInstant) -> Duration { other.offset - offset }
    public static func < (lhs: TestClockInstant, rhs: TestClockInstant) -> Bool { lhs.offset < rhs.offset }
}
