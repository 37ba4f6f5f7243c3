import Foundation
import ChorusPhonemizer
import Testing
@testable import ChorusPiper
import ChorusSpeech

@Suite struct PiperUnitTests {
    @Test func clausesBecomeSentencesWithPiperPunctuation() {
        let clauses = [
            PhonemeClause(phonemes: "həlˈoʊ", terminator: ",", punctuation: .comma, endsSentence: false),
            PhonemeClause(phonemes: "wˈɜːld", terminator: ".", punctuation: .period, endsSentence: true),
            PhonemeClause(phonemes: "wˈaɪ", terminator: "?", punctuation: .question, endsSentence: true),
        ]
        #expect(PiperPhonemeEncoder.sentences(from: clauses) == ["həlˈoʊ, wˈɜːld.", "wˈaɪ?"])
        // An ellipsis is no plain clause type: no mark, no space, the sentence goes on, as piper-phonemize has it.
        let ellipsis = [PhonemeClause(phonemes: "wˈeɪt", terminator: "…", punctuation: nil, endsSentence: false),
                        PhonemeClause(phonemes: "wˌʌt", terminator: "?", punctuation: .question, endsSentence: true)]
        #expect(PiperPhonemeEncoder.sentences(from: ellipsis) == ["wˈeɪtwˌʌt?"])
        // A dash is a semicolon; a sentence with no phonemes is left out.
        let dash = [PhonemeClause(phonemes: "jˈɛs", terminator: "—", punctuation: .semicolon, endsSentence: false),
                    PhonemeClause(phonemes: "nˈoʊ", terminator: "!", punctuation: .exclamation, endsSentence: true),
                    PhonemeClause(phonemes: "", terminator: nil, punctuation: nil, endsSentence: true)]
        #expect(PiperPhonemeEncoder.sentences(from: dash) == ["jˈɛs; nˈoʊ!"])
    }

    @Test func idsAreFramedWithBosPadAndEos() {
        let encoder = PiperPhonemeEncoder(ids: ["^": [1], "$": [2], "_": [0], "a": [14], "b": [15]])
        // Unknown phonemes ("z") are skipped, as Piper does.
        #expect(encoder.encode("abz") == [1, 0, 14, 0, 15, 0, 2])
    }

    @Test func aSentenceIsCutAtWordBreaksIntoRunsAModelCallCanTake() {
        let long = String(repeating: "ɡɹˈɪnɪŋ fˈeɪs ", count: 400)
        let runs = PiperSynthesizer.bounded(long, limit: 100)
        #expect(runs.count > 50)
        #expect(runs.allSatisfy { $0.unicodeScalars.count <= 100 && $0.hasSuffix(" ") })
        #expect(runs.joined() == long)
        #expect(PiperSynthesizer.bounded("həlˈoʊ.", limit: 100) == ["həlˈoʊ."])
        // No word break: cut at the limit.
        #expect(PiperSynthesizer.bounded(String(repeating: "a", count: 250), limit: 100).map(\.count) == [100, 100, 50])
    }

    @Test func voicesAreOfUnknownGender() throws {
        let json = #"""
            {"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}, "language": {"code": "en_US"},
             "dataset": "joe", "phoneme_id_map": {"^": [1], "$": [2], "_": [0]}}
            """#
        let voice = PiperSynthesizer.describe(id: "en_US-joe-medium", config: try PiperVoiceConfig(data: Data(json.utf8), path: "v.json"))
        #expect(voice == Voice(id: "en_US-joe-medium", engine: "piper", language: "en-US", gender: .unknown,
                               summary: "Piper VITS voice 'joe', 22050 Hz", sampleRate: 22_050))
    }

    @Test func configErrorsNameTheProblem() {
        #expect(throws: SpeechError.invalidModelFile(path: "v.json", reason: "not a JSON object")) {
            try PiperVoiceConfig(data: Data("[1,2".utf8), path: "v.json")
        }
        let noMap = #"{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}}"#
        #expect(throws: SpeechError.invalidModelFile(path: "v.json", reason: "phoneme_id_map is missing")) {
            try PiperVoiceConfig(data: Data(noMap.utf8), path: "v.json")
        }
    }
}

@Suite(.enabled(if: InstalledModels.piper, InstalledModels.reason))
struct PiperModelTests {
    static let engine = Result { try PiperSynthesizer() }

    /// 4,096 emoji, which espeak reads out by name, took one request to 1.33 GB: one call per sentence,
    /// 400 emoji a sentence, some 10,000 phonemes a call.
    @Test func emojiReadOutByNameAreSpokenInCallsOfBoundedLength() throws {
        let piper = try Self.engine.get()
        let calls = try piper.modelInputs(for: String(repeating: "😀", count: 800))
        #expect(calls.count >= 2)
        // Each phoneme is an id and a pad, within the ^ _ ... $ frame.
        #expect(calls.allSatisfy { $0.count <= 2 * PiperSynthesizer.maximumPhonemesPerCall + 3 })
    }

    /// The Hebrew text is refused before any model runs (its letters read by name), as the stream sees it; prose
    /// and numbers of the server's 4,096 characters pass the check.
    @Test func textThatCostsFarMoreThanItsLengthIsRefused() async throws {
        let piper = try Self.engine.get()
        for text in [CostlyTexts.prose, CostlyTexts.numbers, CostlyTexts.emoji, CostlyTexts.hebrew] {
            let refused = try CostlyTexts.refusal(text, piper.checkCost(of:))
            print("Piper: \(text.count) characters (\(text.prefix(12))...): \(refused.map { "refused, \($0.units) phonemes over \($0.limit)" } ?? "allowed")")
        }
        #expect(try CostlyTexts.refusal(CostlyTexts.prose, piper.checkCost(of:)) == nil)
        #expect(try CostlyTexts.refusal(CostlyTexts.numbers, piper.checkCost(of:)) == nil)
        await CostlyTexts.expectRefusedBeforeAudio(piper.stream(SynthesisRequest(text: CostlyTexts.hebrew)))
        #expect(try CostlyTexts.refusal(CostlyTexts.hebrew, piper.checkCost(of:)) != nil)
    }

    @Test func speaksSentencesWithSilenceBetween() async throws {
        let piper = try Self.engine.get()
        #expect(piper.sampleRate == 22_050)
        #expect(piper.voices.map(\.gender) == [.unknown])
        var chunks: [AudioChunk] = []
        for try await chunk in piper.stream(SynthesisRequest(text: "Good morning. How are you today?")) {
            chunks.append(chunk)
        }
        #expect(chunks.count == 2)
        #expect(chunks.allSatisfy { rms($0.samples) > 0.02 })
        // The first sentence ends with 0.2 s of inserted silence.
        #expect(chunks[0].samples.suffix(4_000).allSatisfy { $0 == 0 })
    }

    @Test func badRequestsGetClearErrors() async throws {
        let piper = try Self.engine.get()
        await #expect(throws: SpeechError.emptyText) { try await piper.synthesize(SynthesisRequest(text: "")) }
        await #expect(throws: SpeechError.self) {
            try await piper.synthesize(SynthesisRequest(text: "Hi.", voice: "nobody"))
        }
    }
}
