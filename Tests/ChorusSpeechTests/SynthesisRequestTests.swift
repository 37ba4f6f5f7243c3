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

    /// Text of only control characters gave CosyVoice 43.8 s of audio, NeuTTS 1.0 s and Chatterbox 2.0 s,
    /// where Kokoro and Piper said there was nothing to speak: every engine now says so first.
    @Test func textWithNoLetterDigitOrSymbolHasNothingToSpeak() throws {
        for text in ["\u{1}\u{2}\u{7}\u{1B}", "\u{200B}\u{200D}\u{FEFF}", "...!?", "\u{1}.,;", "\u{301}\u{302}"] {
            #expect(throws: SpeechError.nothingToSpeak(text)) { try SynthesisRequest(text: text).checkTextAndSpeed() }
        }
        for text in ["a", "7", "€", "😀", "日本", "\u{1}Hi\u{1}", "مرحبا", "שלום"] {
            try SynthesisRequest(text: text).checkTextAndSpeed()
        }
    }

    /// Issue 31, item 3: a front end's count of phonemes or tokens is allowed 8 a character (at least 1,000
    /// characters counted) and 64 more.
    @Test func aTextCostingFarMoreThanItsLengthIsRefused() throws {
        let request = SynthesisRequest(text: String(repeating: "x", count: 2_000))
        try request.checkCost(units: 16_064, unit: "phonemes")
        #expect(throws: SpeechError.textTooCostly(characters: 2_000, units: 16_065, unit: "phonemes", limit: 16_064)) {
            try request.checkCost(units: 16_065, unit: "phonemes")
        }
        #expect("\(SpeechError.textTooCostly(characters: 2_000, units: 16_065, unit: "phonemes", limit: 16_064))".hasPrefix(
            "The text's 2000 characters make 16065 phonemes, more than the 16064 allowed for that length (8 a character, counting at least 1000, and 64 more)"))
        // A short text is allowed what 1,000 characters are.
        let short = SynthesisRequest(text: String(repeating: "x", count: 24))
        try short.checkCost(units: 8_064, unit: "phonemes")
        #expect(throws: SpeechError.textTooCostly(characters: 24, units: 8_065, unit: "phonemes", limit: 8_064)) {
            try short.checkCost(units: 8_065, unit: "phonemes")
        }
    }

    /// "a" with 1,000 combining marks is one character, so a character limit let it through, and it cost
    /// CosyVoice's front end 94 s and 1.1 GB.
    @Test func aCharacterOfMoreCodePointsThanAnyLanguageUsesIsRefused() throws {
        let heavy = "a" + String(repeating: "\u{301}", count: 1_000)
        #expect(heavy.count == 1)
        #expect(throws: SpeechError.overloadedCharacter(scalars: 1_001, limit: SynthesisRequest.maximumScalarsPerCharacter)) {
            try SynthesisRequest(text: "Hello " + heavy).checkTextAndSpeed()
        }
        // Real stacks pass: Vietnamese, Devanagari, Thai, a family emoji, a flag.
        for text in ["Tiếng Việt", "क्षत्रिय", "น้ำ", "👨‍👩‍👧‍👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "👩🏽‍❤️‍💋‍👨🏿"] {
            try SynthesisRequest(text: text).checkTextAndSpeed()
        }
    }
}
