@testable import ChorusCosyVoice
import ChorusSpeech
import Foundation
import Testing

/// upstream `inference_cross_lingual` against the Python reference on the generated models.
@Suite struct CrossLingualTests {
    static let targetText = ParityTests.targetText

    func engine(_ golden: TestResources.Case, voices: URL) throws -> CosyVoiceSynthesizer {
        let tokenizer = ParityTests.GoldenTokenizer(table: [Frontend.crossLingualText(Self.targetText): golden.textTokens])
        return try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: voices, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed))
    }

    /// The LLM reads "You are a helpful assistant.<|endofprompt|>" and the text, whole, with no transcript
    /// and no prompt speech; the length limits count the whole of it; the flow keeps the clip's timbre.
    @Test func speaksLikeUpstreamsInferenceCrossLingualWholeAndStreamed() async throws {
        let golden = try TestResources.crossLingualCase()
        #expect(golden.promptTextTokens.isEmpty)
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        try VoiceCatalog.add(voice, id: "clip", language: "zh", gender: .female, to: folder)
        let engine = try engine(golden, voices: folder)

        let result = try engine.synthesize(promptText: [], text: golden.textTokens, voice: voice, usesPromptSpeech: false)
        #expect(result.sampledTokens == golden.sampledTokens)
        #expect(result.tokens == golden.tokens)
        #expect(result.audio.count == golden.audioSamples)
        let audioDifference = maxAbsDifference(result.audio, try TestResources.floats("crosslingual-audio.f32"))
        #expect(audioDifference <= 1e-5)
        // The whole text bounds the length: at most 20 speech tokens per text token, prefix included.
        #expect(result.sampledTokens.count <= 20 * golden.textTokens.count)

        var chunks: [[Float]] = []
        for try await chunk in engine.stream(SynthesisRequest(text: Self.targetText, voice: "clip"), mode: .crossLingual) {
            chunks.append(chunk.samples)
        }
        #expect(chunks.map(\.count) == golden.chunkSamples)
        let streamDifference = maxAbsDifference(chunks.flatMap { $0 }, try TestResources.floats("crosslingual-stream.f32"))
        #expect(streamDifference <= 1e-5)
        print("CosyVoice cross-lingual parity: \(result.tokens.count) tokens equal: \(result.tokens == golden.tokens), "
              + "audio max |diff| \(audioDifference), streamed max |diff| \(streamDifference)")
        // Without the transcript and the clip's tokens the LLM draws otherwise than zero-shot.
        #expect(golden.sampledTokens != (try TestResources.goldenCase().sampledTokens))
    }

    @Test func aVoiceWithoutATranscriptSpeaksOnlyCrossLingually() async throws {
        let golden = try TestResources.crossLingualCase()
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var voice = try VoicePrompt(contentsOf: TestResources.voice)
        voice.text = ""
        try VoiceCatalog.add(voice, id: "untold", language: "zh", gender: .unknown, to: folder)
        let engine = try engine(golden, voices: folder)
        await #expect(throws: CosyVoiceError.voiceWithoutTranscript(voice: "untold")) {
            for try await _ in engine.stream(SynthesisRequest(text: Self.targetText, voice: "untold")) {}
        }
        var samples = 0
        for try await chunk in engine.stream(SynthesisRequest(text: Self.targetText, voice: "untold"), mode: .crossLingual) {
            samples += chunk.samples.count
        }
        #expect(samples == golden.audioSamples)
        #expect("\(CosyVoiceError.voiceWithoutTranscript(voice: "untold"))".contains("--cross-lingual"))
    }
}
