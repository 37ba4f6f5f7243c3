import ChorusAudio
import Foundation
import Testing
@testable import ChorusCosyVoice

/// Chorus's CosyVoice 3 front end against upstream's `CosyVoiceFrontEnd` (scripts/testdata/cosyvoice/
/// make_upstream_frontend.py): its tokenizer over Hugging Face's, and `frontend_zero_shot` of a real clip with
/// small stand-ins for CAMPPlus and the speech tokenizer.
@Suite struct UpstreamFrontendTests {
    static var folder: URL { UpstreamTests.folder.appendingPathComponent("frontend", isDirectory: true) }

    struct TokenizerGolden: Decodable {
        struct Case: Decodable {
            var text: String
            var ids: [Int]
        }
        var upstream: [String: String]
        var cases: [Case]
    }

    struct FrontendGolden: Decodable {
        var clip: String
        var transcript: String
        var text: String
        var promptTextTokens: [Int]
        var textTokens: [Int]
        var speechTokens: [Int]
        /// The least gap between the stand-in tokenizer's best and second-best score of a frame, relative.
        var leastTokenMargin: Double
        var embedding: [Float]
        var melShape: [Int]
    }

    /// The Qwen2 vocabulary of the Text tests, as upstream's generator read it.
    static let qwen2 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TextTestData/qwen2")

    /// upstream `CosyVoice3Tokenizer.encode` (transformers over tokenizers) gives the same ids: plain text,
    /// `<|endofprompt|>`, the event and emphasis marks, CMU phonemes and pinyin in brackets.
    @Test func tokenizerEqualsUpstream() throws {
        let golden = try JSONDecoder().decode(TokenizerGolden.self, from: Data(contentsOf: Self.folder.appendingPathComponent("tokenizer.json")))
        let tokenizer = try Frontend.loadTokenizer(from: Self.qwen2)
        #expect(golden.cases.count == 9)
        for expected in golden.cases {
            #expect(try tokenizer.encode(expected.text) == expected.ids, "\(expected.text)")
        }
    }

    /// Chorus's whole voice extraction of the clip against upstream's `frontend_zero_shot`: the speech tokens
    /// exactly (each frame's best score leads the next by at least 0.2% of the largest, far above float32's
    /// differences in the Whisper features), the embedding and the prompt mel within float32 noise, and the
    /// prompt and target texts' ids.
    @Test func voiceExtractionEqualsUpstream() throws {
        let golden = try JSONDecoder().decode(FrontendGolden.self, from: Data(contentsOf: Self.folder.appendingPathComponent("frontend.json")))
        #expect(golden.leastTokenMargin >= 1e-3)
        let clip = try WAVFile.readMono(contentsOf: Self.folder.appendingPathComponent(golden.clip))
        let extractor = try VoiceExtractor(folder: Self.folder)
        let voice = try extractor.encode(samples: clip.samples, sampleRate: clip.sampleRate, transcript: golden.transcript)

        #expect(voice.speechTokens == golden.speechTokens)
        let embeddingDifference = maxAbsDifference(voice.speakerEmbedding, golden.embedding)
        let embeddingScale = golden.embedding.map(abs).max() ?? 1
        #expect(voice.speakerEmbedding.count == golden.embedding.count && embeddingDifference <= 1e-4 * embeddingScale,
                "\(embeddingDifference)")
        let mel = try UpstreamTests.floats("frontend/frontend-mel.f32")
        #expect([voice.melFrames, MelSpectrogram.bins] == golden.melShape)
        let melDifference = maxAbsDifference(voice.mel, mel)
        #expect(voice.mel.count == mel.count && melDifference <= 1e-3, "\(melDifference)")
        print("CosyVoice voice extraction against upstream: \(voice.speechTokens.count) speech tokens equal: "
              + "\(voice.speechTokens == golden.speechTokens), embedding max |diff| \(embeddingDifference), mel max |diff| \(melDifference)")

        let tokenizer = try Frontend.loadTokenizer(from: Self.qwen2)
        #expect(try tokenizer.encode(Frontend.promptText(transcript: voice.text)) == golden.promptTextTokens)
        #expect(try tokenizer.encode(golden.text) == golden.textTokens)
    }
}
