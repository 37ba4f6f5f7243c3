import ChorusAudio
import ChorusGeneration
import ChorusONNX
import Foundation
import Testing
@testable import ChorusChatterbox

/// The generated speech encoder (Resources/encoder, scripts/testdata/chatterbox/speech_encoder.py): upstream's
/// `prepare_conditionals` parts at small widths in one graph, and upstream's own conditionals of a fixed clip.
@Suite struct SpeechEncoderTests {
    static var folder: URL { TestResources.root.appendingPathComponent("encoder", isDirectory: true) }

    /// upstream's generate with the clip's voice, its draws' margins as the generator measured them (its record)
    /// and what made it.
    struct Speech: Decodable {
        var text: String
        var textIds: [Int]
        var seed: UInt64
        var maxGenLen: Int
        var tokens: [Int]
        var samples: Int
        var margins: [Double]?
        var thresholds: [String: Double]?
        var versions: [String: String]?
    }

    /// Chorus's voice from the clip.
    static func clipVoice() throws -> VoiceConditioning {
        let clip = try WAVFile.readMono(contentsOf: folder.appendingPathComponent("clip.wav"))
        #expect(clip.sampleRate == 24_000)
        let encoder = try SpeechEncoder(session: InferenceSession(
            modelPath: folder.appendingPathComponent("speech_encoder.onnx").path))
        return try encoder.encode(clip.samples, sampleRate: clip.sampleRate)
    }

    /// A voice from the clip (Chorus's -27 LUFS normalisation, then the graph) against upstream's
    /// `ChatterboxTurboTTS.prepare_conditionals` of the same clip on the PyTorch weights, whose one
    /// `librosa.resample` call (the 16 kHz copy for T3's prompt tokens and the VoiceEncoder) the generator gave the
    /// resampler the graph has (torchaudio's, which upstream's `embed_ref` uses); with librosa's soxr 33 of the 135
    /// prompt tokens differ, so no graph without soxr inside could match that.
    ///
    /// Tolerances: the prompt mel (`speaker_features`) is held to 1e-3: the graph computes the STFT as a product
    /// with the DFT basis, upstream's torch.stft an FFT; both float32, they part by 7.4e-4 (measured in the
    /// generator) in bins near the ln(1e-5) floor (about -11), where the logarithm magnifies them. The rest is
    /// held to 1e-4 and the tokens exactly; then the speech made with the voice equals upstream's generate (below).
    @Test func voiceFromClipEqualsUpstream() throws {
        let voice = try Self.clipVoice()
        let upstream = try VoiceConditioning(folder: Self.folder)
        #expect(voice.audioTokens == upstream.audioTokens)
        #expect(voice.audioTokens.count == 135 && voice.promptFrames == 270)
        #expect(voice.conditioningLength == upstream.conditioningLength && voice.width == upstream.width)
        #expect(voice.promptFrames == upstream.promptFrames)
        let features = TestResources.maximumDifference(voice.audioFeatures, upstream.audioFeatures)
        let speaker = TestResources.maximumDifference(voice.speakerEmbeddings, upstream.speakerEmbeddings)
        let mel = TestResources.maximumDifference(voice.speakerFeatures, upstream.speakerFeatures)
        print("Chatterbox voice from clip vs upstream: audio_features \(features), speaker_embeddings \(speaker), "
              + "speaker_features \(mel)")
        #expect(voice.audioFeatures.count == upstream.audioFeatures.count && features < 1e-4)
        #expect(voice.speakerEmbeddings.count == 192 && speaker < 1e-4)
        #expect(voice.speakerFeatures.count == upstream.speakerFeatures.count && mel < 1e-3)
    }

    /// upstream's generate with the clip's voice (speech.json) against Chorus's with its voice from the clip: the
    /// same tokens in every `GoldenRun`, each draw keeping `TestResources.leastMargin` on Chorus's logits, and the
    /// audio within 1e-4.
    @Test(arguments: GoldenRun.allCases) func speechWithTheClipsVoiceEqualsUpstream(run: GoldenRun) throws {
        let voice = try Self.clipVoice()
        let golden = try TestResources.decoded("../encoder/speech.json", as: Speech.self)
        #expect(golden.margins != nil && golden.versions?["chatterbox-tts"] == "0.1.7",
                "the golden records no margins or versions; run make_testdata.py --sampled-only")
        let ids = try ChatterboxTextEncoder(folder: TestResources.model).ids(for: golden.text)
        #expect(ids == golden.textIds.map(EmbeddingIDs.row(ofTextID:)) + [EmbeddingIDs.startOfSpeech])
        let model = try TestResources.languageModel(maximumNewTokens: golden.maxGenLen, threads: run.threads)
        let (tokens, margins) = try run.measured {
            try model.generate(.init(voice: voice, ids: ids, seed: golden.seed)) { _ in }
        }
        #expect(tokens == golden.tokens)
        try run.requireMargins(margins, atLeast: TestResources.leastMargin)
        #expect(margins.count == golden.margins?.count)
        let decoder = try ConditionalDecoder(session: TestResources.session("conditional_decoder.onnx"))
        let audio = try decoder.decode(tokens, voice: voice)
        let expected = try TestResources.floats("../encoder/speech.f32")
        #expect(audio.count == golden.samples && audio.count == expected.count)
        let difference = TestResources.maximumDifference(audio, expected)
        print("Chatterbox speech with the clip's voice (\(run)): \(tokens.count) tokens, least margin on Chorus's logits "
              + "\(margins.map(\.least).min() ?? .infinity), max |difference| from upstream \(difference)")
        #expect(difference < 1e-4)
    }

    /// The voice written and read back is the same voice.
    @Test func encodedVoiceRoundTrips() throws {
        let clip = try WAVFile.readMono(contentsOf: Self.folder.appendingPathComponent("clip.wav"))
        let encoder = try SpeechEncoder(session: InferenceSession(
            modelPath: Self.folder.appendingPathComponent("speech_encoder.onnx").path))
        let voice = try encoder.encode(clip.samples, sampleRate: clip.sampleRate)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-voice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try voice.write(to: folder)
        #expect(try VoiceConditioning(folder: folder) == voice)
    }
}
