import ChorusSpeech
import Testing

@Suite struct SynthesisRequestTests {
    @Test func textAndSpeedAreCheckedAsEveryEngineChecksThem() throws {
        for blank in ["", " ", " \n\t ", "\u{3000}"] {
            #expect(throws: SpeechError.emptyText) { try SynthesisRequest(text: blank).checkTextAndSpeed() }
        }
        for speed: Float in [0.49, 2.01, 9, -1, .infinity] {
            #expect(throws: SpeechError.invalidSpeed(speed, allowed: SynthesisRequest.speeds)) { try SynthesisRequest(text: "Hi.", speed: speed).checkTextAndSpeed() }
        }
        // NaN is refused too (and equals no error, NaN being unequal to itself).
        let nan = #expect(throws: SpeechError.self) { try SynthesisRequest(text: "Hi.", speed: .nan).checkTextAndSpeed() }
        guard case .invalidSpeed(let speed, _) = nan, speed.isNaN else { Issue.record("NaN gave \(String(describing: nan))"); return }
        for speed: Float in [0.5, 1, 1.6, 2] { try SynthesisRequest(text: " Hi.", speed: speed).checkTextAndSpeed() }
        // An engine that speaks at one pace takes 1 alone.
        try SynthesisRequest(text: "Hi.").checkTextAndSpeed(speeds: 1...1)
        #expect(throws: SpeechError.invalidSpeed(1.5, allowed: 1...1)) { try SynthesisRequest(text: "Hi.", speed: 1.5).checkTextAndSpeed(speeds: 1...1) }
        // The text is checked first.
        #expect(throws: SpeechError.emptyText) { try SynthesisRequest(text: " ", speed: 9).checkTextAndSpeed() }
    }
}
