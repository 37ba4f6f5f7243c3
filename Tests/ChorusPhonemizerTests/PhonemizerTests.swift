import Testing
@testable import ChorusPhonemizer

@Suite struct EspeakPhonemizerTests {
    @Test func englishClausesKeepTheirPunctuation() throws {
        let clauses = try EspeakPhonemizer.shared().phonemize("Hello there, I owe you five dollars. Why?", voice: "en-us")
        #expect(clauses.map(\.terminator) == [",", ".", "?"])
        #expect(clauses[0].phonemes == "həlˈoʊ ðˈɛɹ")
        #expect(clauses[1].phonemes.hasPrefix("aɪ ˈoʊ juː"))
        #expect(clauses.map(\.endsSentence) == [false, true, true])
    }

    @Test func tiesJoinDiphthongs() throws {
        let clauses = try EspeakPhonemizer.shared().phonemize(
            "I owe you", voice: "en-us", options: .init(tiesMultiLetterPhonemes: true))
        #expect(clauses.first?.phonemes == "a\u{200D}ɪ ˈo\u{200D}ʊ juː")
    }

    @Test func numbersAreSpelledOut() throws {
        let clauses = try EspeakPhonemizer.shared().phonemize("3", voice: "en-us")
        #expect(clauses.first?.phonemes == "θɹˈiː")
    }

    @Test func unknownVoiceIsNamed() {
        #expect(throws: PhonemizerError.unknownVoice("xx-nowhere")) {
            try EspeakPhonemizer.shared().phonemize("hello", voice: "xx-nowhere")
        }
    }

    @Test func emptyAndPunctuationOnlyTextGiveNoPhonemes() throws {
        let phonemizer = try EspeakPhonemizer.shared()
        #expect(try phonemizer.phonemize("", voice: "en-us").allSatisfy { $0.phonemes.isEmpty })
        #expect(try phonemizer.phonemize("   ", voice: "en-us").allSatisfy { $0.phonemes.isEmpty })
    }

    @Test func concurrentCallsAreSerialisedAndAgree() async throws {
        let phonemizer = try EspeakPhonemizer.shared()
        let expected = try phonemizer.phonemize("The quick brown fox.", voice: "en-us")
        let results = try await withThrowingTaskGroup(of: [PhonemeClause].self) { group in
            for index in 0..<16 {
                group.addTask {
                    // Alternate voices so a missing lock would mix languages.
                    _ = try phonemizer.phonemize("Bonjour.", voice: index % 2 == 0 ? "fr" : "de")
                    return try phonemizer.phonemize("The quick brown fox.", voice: "en-us")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func terminatorSkipsEspeaksLookaheadCharacter() {
        #expect(EspeakPhonemizer.terminator(of: "Hello there, I", hasLookahead: true) == ",")
        #expect(EspeakPhonemizer.terminator(of: "word and more", hasLookahead: true) == nil)
        #expect(EspeakPhonemizer.terminator(of: "你好。我", hasLookahead: true) == "。")
        #expect(EspeakPhonemizer.terminator(of: "Why?", hasLookahead: false) == "?")
        #expect(EspeakPhonemizer.terminator(of: "end.\n", hasLookahead: false) == ".")
    }

    @Test func languageSwitchMarkersAreRemoved() {
        #expect(EspeakPhonemizer.clean("(fr)bɔ̃ʒuʁ(en)  hɛlˈoʊ ") == "bɔ̃ʒuʁ hɛlˈoʊ")
    }
}
