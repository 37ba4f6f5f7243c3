import Foundation
import Speech
import Testing
@testable import CosyVoice

/// Chorus against the Python reference (scripts/testdata/cosyvoice/reference.py) on the generated models:
/// the same tokens, and mel and audio within 1e-4.
@Suite struct ParityTests {
    /// Maps the two texts of the golden case to the ids the reference used, as a real tokenizer would.
    struct GoldenTokenizer: TextTokenizing {
        var table: [String: [Int]]
        func encode(_ text: String) throws -> [Int] {
            guard let ids = table[text] else { throw SpeechError.nothingToSpeak(text) }
            return ids
        }
    }

    static let targetText = "你好，这是一个测试句子。"

    func synthesizer(_ golden: TestResources.Case) throws -> CosyVoiceSynthesizer {
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let tokenizer = GoldenTokenizer(table: [
            Frontend.promptText(transcript: voice.text): golden.promptTextTokens,
            Self.targetText: golden.textTokens,
        ])
        return try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: TestResources.root, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed))
    }

    @Test func matchesTheReferenceStageByStage() throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden)
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let result = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice)

        #expect(result.sampledTokens == golden.sampledTokens)
        #expect(result.tokens == golden.tokens)
        #expect(result.sampledTokens.count > result.tokens.count, "the golden case exercises the silence filter")

        let mel = try TestResources.floats("mel.f32")
        #expect([MelSpectrogram.bins, result.mel.frames] == golden.melShape)
        let melDifference = maxAbsDifference(result.mel.values, mel)
        let audio = try TestResources.floats("audio.f32")
        #expect(result.audio.count == golden.audioSamples)
        let audioDifference = maxAbsDifference(result.audio, audio)
        print("CosyVoice parity: \(result.tokens.count) tokens equal: \(result.tokens == golden.tokens), "
              + "mel max |diff| \(melDifference), audio max |diff| \(audioDifference)")
        #expect(melDifference <= 1e-4)
        #expect(audioDifference <= 1e-4)
    }

    @Test func speaksThroughTheSharedProtocol() async throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden)
        #expect(engine.voices.map(\.id) == ["voice"])
        let samples = try await engine.synthesize(SynthesisRequest(text: Self.targetText))
        let audio = try TestResources.floats("audio.f32")
        #expect(samples.count == audio.count)
        #expect(maxAbsDifference(samples, audio) <= 1e-4)

        await #expect(throws: SpeechError.emptyText) {
            _ = try await engine.synthesize(SynthesisRequest(text: "  "))
        }
    }
}
