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

    @Test func aNULInsideTheTextReadsAsASpaceInsteadOfEndingIt() throws {
        let phonemizer = try EspeakPhonemizer.shared()
        let withNUL = try phonemizer.phonemize("Hello\u{0}there, my friend.", voice: "en-us")
        let withSpace = try phonemizer.phonemize("Hello there, my friend.", voice: "en-us")
        #expect(withNUL == withSpace)
        #expect(withNUL.map(\.phonemes).joined().count > 10)
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

    @Test func clauseEndSkipsEspeaksLookaheadCharacter() {
        #expect(ClauseEnd(consumed: "Hello there, I", hasLookahead: true)
                == ClauseEnd(terminator: ",", punctuation: .comma, endsSentence: false))
        #expect(ClauseEnd(consumed: "word and more", hasLookahead: true)
                == ClauseEnd(terminator: nil, punctuation: nil, endsSentence: false))
        #expect(ClauseEnd(consumed: "Why?", hasLookahead: false)
                == ClauseEnd(terminator: "?", punctuation: .question, endsSentence: true))
        #expect(ClauseEnd(consumed: "end", hasLookahead: false)
                == ClauseEnd(terminator: nil, punctuation: nil, endsSentence: true))
    }

    @Test func clauseEndFollowsEspeaksClauseTypes() {
        // An ellipsis: no plain type, no sentence end.
        #expect(ClauseEnd(consumed: "Wait... w", hasLookahead: true)
                == ClauseEnd(terminator: "…", punctuation: nil, endsSentence: false))
        // A dash is a semicolon; the first of ?! decides; a quote after the mark is read with it.
        #expect(ClauseEnd(consumed: "Yes — n", hasLookahead: true).punctuation == .semicolon)
        #expect(ClauseEnd(consumed: "Really?! Y", hasLookahead: true).punctuation == .question)
        #expect(ClauseEnd(consumed: "\"Stop!\" ", hasLookahead: true)
                == ClauseEnd(terminator: "!", punctuation: .exclamation, endsSentence: true))
        // Full-width marks need no space and match no plain type; a blank line ends the sentence bare.
        #expect(ClauseEnd(consumed: "你好。我", hasLookahead: true)
                == ClauseEnd(terminator: "。", punctuation: nil, endsSentence: true))
        #expect(ClauseEnd(consumed: "One.\n\nT", hasLookahead: true)
                == ClauseEnd(terminator: ".", punctuation: nil, endsSentence: true))
    }

    @Test func espeakClausesCarryTheirType() throws {
        let clauses = try EspeakPhonemizer.shared().phonemize("Wait... what? Yes — no!", voice: "en-us")
        #expect(clauses.map(\.punctuation) == [nil, .question, .semicolon, .exclamation])
        #expect(clauses.map(\.endsSentence) == [false, true, false, true])
    }

    @Test func versionIsReported() throws {
        #expect(try EspeakPhonemizer.shared().version.hasPrefix("1."))
    }

    @Test func languageSwitchMarkersAreRemoved() {
        #expect(EspeakPhonemizer.clean("(fr)bɔ̃ʒuʁ(en)  hɛlˈoʊ ") == "bɔ̃ʒuʁ hɛlˈoʊ")
    }
}
