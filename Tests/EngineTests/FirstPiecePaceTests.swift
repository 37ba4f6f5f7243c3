import ChorusPieceModel
import Testing

/// The first piece of a stream is as long as the machine makes within its time, learnt from the calls.
@Suite struct FirstPiecePaceTests {
    @Test func beforeAnyCallTheStartingLengthHolds() {
        let pace = FirstPiecePace(within: 0.7, startingLength: 24)
        #expect(pace.firstLength(longest: 60) == 24)
        #expect(pace.firstLength(longest: 10) == 10)
    }

    /// Calls of 0.4 s plus 0.02 s a character: 0.71 s allows 15 characters (16 when that is the shortest).
    /// On a machine ten times as fast, the whole 60 the ramp allows.
    @Test func theOverheadAndTheRateAreFittedFromCallsOfDifferentLengths() {
        let slow = FirstPiecePace(within: 0.71, startingLength: 24, shortestLength: 8)
        for characters in [20, 40, 80, 20, 160] { slow.record(characters: characters, seconds: 0.4 + 0.02 * Double(characters)) }
        #expect(slow.firstLength(longest: 60) == 15)
        let fast = FirstPiecePace(within: 0.7, startingLength: 24)
        for characters in [20, 40, 80] { fast.record(characters: characters, seconds: 0.04 + 0.002 * Double(characters)) }
        #expect(fast.firstLength(longest: 60) == 60)
        let shortest = FirstPiecePace(within: 0.7, startingLength: 24, shortestLength: 16)
        for characters in [20, 40, 80] { shortest.record(characters: characters, seconds: 0.4 + 0.02 * Double(characters)) }
        #expect(shortest.firstLength(longest: 60) == 16)
    }

    /// Calls all of one length cannot tell the overhead from the rate: the time is taken as proportional.
    @Test func callsOfOneLengthGiveAProportionalRate() {
        let pace = FirstPiecePace(within: 0.7, startingLength: 24)
        pace.record(characters: 30, seconds: 1.0)
        pace.record(characters: 31, seconds: 1.0)
        #expect(pace.firstLength(longest: 60) == 21)
        // Nonsense from a clock is not kept.
        pace.record(characters: 0, seconds: 1)
        pace.record(characters: 10, seconds: .nan)
        #expect(pace.firstLength(longest: 60) == 21)
    }

    /// Only the most recent calls count: a machine that got busier gets shorter first pieces.
    @Test func oldCallsAreForgotten() {
        let pace = FirstPiecePace(within: 0.7, startingLength: 24)
        for _ in 0..<FirstPiecePace.rememberedCalls { pace.record(characters: 30, seconds: 0.3) }
        #expect(pace.firstLength(longest: 60) == 60)
        for _ in 0..<FirstPiecePace.rememberedCalls { pace.record(characters: 30, seconds: 1.0) }
        #expect(pace.firstLength(longest: 60) == 21)
    }
}
