import ChorusONNX
import ChorusSpeech
import Foundation

/// Stage 3: speech tokens to 24 kHz audio on the export's `conditional_decoder` (S3Gen's flow and HiFT), as
/// upstream's `generate` ends: ids at or above 6561 dropped, three silence tokens (4299) appended, the
/// voice's prompt tokens put first, then upstream's trim fade on the waveform (`S3Token2Wav`: the first 20 ms
/// silenced, the next 20 ms faded in with a raised cosine). The Perth watermark upstream always adds is not
/// applied.
public struct ConditionalDecoder: Sendable {
    public let session: InferenceSession
    /// Samples per second of the audio.
    public static let sampleRate = 24_000
    /// Samples per speech token (two mel frames of 480).
    public static let samplesPerToken = 960
    /// Silence tokens (4299) appended to every utterance before decoding.
    public static let silenceTokens = 3

    /// The stage over a loaded `conditional_decoder` session; throws naming the file when its interface
    /// is not the export's.
    public init(session: InferenceSession) throws {
        self.session = session
        try session.checkExport(input: "speech_tokens", types: [.int64], rank: 2)
        try session.checkExport(input: "speaker_embeddings", types: [.float32, .float16], rank: 2)
        try session.checkExport(input: "speaker_features", types: [.float32, .float16], rank: 3)
        try session.checkExport(output: "waveform", types: [.float32, .float16], rank: 2)
    }

    /// upstream's filter and padding: tokens below 6561, then three silence tokens.
    public static func speechTokens(from generated: [Int]) -> [Int] {
        generated.filter { $0 >= 0 && $0 < EmbeddingIDs.firstSpecialSpeechID } + [Int](repeating: EmbeddingIDs.silence, count: silenceTokens)
    }

    /// `S3Token2Wav.trim_fade`: 480 zeros, then `(cos(linspace(pi, 0, 480)) + 1) / 2`, computed in float32 as torch does.
    public static let trimFade: [Float] = {
        let count = sampleRate / 50
        var fade = [Float](repeating: 0, count: 2 * count)
        // torch.linspace(start, end, steps) in float32: start + i * (end - start) / (steps - 1), its halves
        // computed from each end.
        let start = Float.pi, end: Float = 0
        let step = (end - start) / Float(count - 1)
        for index in 0..<count {
            let value = index < count / 2 ? start + step * Float(index) : end - step * Float(count - 1 - index)
            fade[count + index] = (cos(value) + 1) / 2
        }
        return fade
    }()

    /// Applies the trim fade to the start of `audio` in place.
    public static func applyTrimFade(_ audio: inout [Float]) {
        for index in 0..<min(audio.count, trimFade.count) { audio[index] *= trimFade[index] }
    }

    /// The audio of `generated` (T3's tokens, unfiltered) in `voice`.
    public func decode(_ generated: [Int], voice: VoiceConditioning) throws -> [Float] {
        let tokens = voice.audioTokens + Self.speechTokens(from: generated)
        let embeddingType = session.input(named: "speaker_embeddings")?.elementType ?? .float32
        let featureType = session.input(named: "speaker_features")?.elementType ?? .float32
        let outputs = try session.run([
            "speech_tokens": Tensor(tokens.map(Int64.init), shape: [1, tokens.count]),
            "speaker_embeddings": Tensor.floats(voice.speakerEmbeddings, shape: [1, voice.speakerEmbeddings.count], as: embeddingType),
            "speaker_features": Tensor.floats(voice.speakerFeatures, shape: [1, voice.promptFrames, VoiceConditioning.melBins], as: featureType),
        ], outputs: ["waveform"])
        guard let waveform = outputs["waveform"], waveform.shape.count == 2 else {
            throw ChatterboxError.unexpectedModel(path: session.modelPath, reason: "returned no [1, samples] waveform")
        }
        var audio = try waveform.floats()
        Self.applyTrimFade(&audio)
        return audio
    }
}
