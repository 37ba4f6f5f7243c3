import ChorusAudio
import ChorusDSP
import ChorusModels
import Foundation
import ChorusONNX
import ChorusSpeech

/// Builds a `VoicePrompt` from a short clip and its exact transcript, as upstream's
/// `CosyVoiceFrontEnd.frontend_zero_shot` does: the speaker embedding from CAMPPlus on a Kaldi fbank
/// (mean-subtracted), the 25 Hz speech tokens from speech_tokenizer_v3 on a 128-bin Whisper log-mel,
/// and the 24 kHz Matcha mel, cut so that mel frames = 2 x tokens.
public struct VoiceExtractor: VoiceEncoder, Sendable {
    /// The two extra ONNX files voice extraction needs (from FunAudioLLM/CosyVoice2-0.5B or Fun-CosyVoice3-0.5B).
    public static let files = ["campplus.onnx", "speech_tokenizer_v3.onnx"]
    /// Shortest clip accepted, in seconds; shorter clips give too few tokens to clone from.
    public static let minimumDuration = 1.0
    /// Longest clip accepted: the speech tokenizer reads at most 30 s (upstream asserts it).
    public static let maximumDuration = 30.0
    /// A clip whose loudest sample is below this is taken as silent.
    public static let silencePeak: Float = 1e-3

    /// The rate the speech tokenizer and CAMPPlus read; the prompt mel is made from the clip at the vocoder's 24 kHz.
    public var sampleRate: Int { 16_000 }

    let speakerEncoder: InferenceSession
    let speechTokenizer: InferenceSession

    /// Loads `campplus.onnx` and `speech_tokenizer_v3.onnx` from `folder`; throws naming the missing one.
    public init(folder: URL, options: SessionOptions = SessionOptions()) throws {
        for name in Self.files where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            throw CosyVoiceSynthesizer.manifest.missing(folder.appendingPathComponent(name).path)
        }
        speakerEncoder = try InferenceSession(modelPath: folder.appendingPathComponent(Self.files[0]).path, options: options)
        speechTokenizer = try InferenceSession(modelPath: folder.appendingPathComponent(Self.files[1]).path, options: options)
        guard speakerEncoder.inputs.count == 1, speakerEncoder.inputs[0].shape.count == 3 else {
            throw CosyVoiceError.unexpectedSignature(file: Self.files[0], problem: "expected one input [1, frames, 80]")
        }
        guard speechTokenizer.inputs.count == 2, speechTokenizer.inputs[0].shape.count == 3,
              speechTokenizer.inputs[1].elementType == .int32
        else {
            throw CosyVoiceError.unexpectedSignature(
                file: Self.files[1], problem: "expected inputs feats [1, 128, frames] and feats_length int32 [1]")
        }
    }

    /// The voice of mono `samples` at `sampleRate` saying `transcript`; with no transcript (nil) the voice
    /// speaks only cross-lingually (upstream `inference_cross_lingual` reads no transcript).
    public func encode(samples: [Float], sampleRate: Int, transcript: String?) throws -> VoicePrompt {
        let text = transcript?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if transcript != nil, text.isEmpty { throw CosyVoiceError.emptyTranscript }
        let duration = Double(samples.count) / Double(sampleRate)
        guard duration >= Self.minimumDuration else {
            throw CosyVoiceError.clipTooShort(seconds: duration, minimum: Self.minimumDuration)
        }
        guard duration <= Self.maximumDuration else {
            throw CosyVoiceError.clipTooLong(seconds: duration, maximum: Self.maximumDuration)
        }
        if let bad = samples.firstIndex(where: { !$0.isFinite }) { throw CosyVoiceError.clipNotFinite(index: bad) }
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        guard peak >= Self.silencePeak else { throw CosyVoiceError.clipSilent(peak: peak) }

        // Upstream's load_wav resamples the clip with torchaudio's windowed sinc, once to each rate; the
        // speech tokenizer, CAMPPlus and the prompt mel learned from audio resampled that way, so the same
        // resampler keeps their top bins as upstream's (Chorus's sharper Resampler differed by up to 3
        // log units in the highest fbank bins and 7 in the Matcha mel above 7.3 kHz).
        let at16k = try SincResampler(inputRate: sampleRate, outputRate: self.sampleRate).resample(samples)
        let at24k = try SincResampler(inputRate: sampleRate, outputRate: Vocoder.sampleRate).resample(samples)
        let tokens = try speechTokens(at16k)
        let embedding = try speakerEmbedding(at16k)
        let mel = MatchaMel()(at24k)
        // upstream: token_len = min(feat frames / 2, tokens); both cut to agree.
        let prompt = VoicePrompt(speakerEmbedding: embedding, speechTokens: tokens, mel: mel.values, text: text)
        return prompt.aligned()
    }

    /// 25 Hz speech tokens of 16 kHz audio.
    func speechTokens(_ samples: [Float]) throws -> [Int] {
        let features = WhisperLogMel(melCount: 128)(samples).transposed()        // [128, frames]
        let feeds: [String: Tensor] = [
            speechTokenizer.inputs[0].name: try speechTokenizer.floatTensor(
                features.values, shape: [1, features.rows, features.columns], for: speechTokenizer.inputs[0].name),
            speechTokenizer.inputs[1].name: try Tensor([Int32(features.columns)], shape: [1]),
        ]
        // The output's name differs between exports; it is the first one.
        let output = try speechTokenizer.output(speechTokenizer.outputs[0].name, of: feeds)
        return try output.floats().map { Int($0) }
    }

    /// CAMPPlus's 192-dim embedding of 16 kHz audio.
    func speakerEmbedding(_ samples: [Float]) throws -> [Float] {
        let features = KaldiFbank.campPlus(samples)                                  // [frames, 80]
        let name = speakerEncoder.inputs[0].name
        let output = try speakerEncoder.output(speakerEncoder.outputs[0].name, of: [
            name: try speakerEncoder.floatTensor(features.values, shape: [1, features.rows, features.columns], for: name),
        ])
        let embedding = try output.floats()
        guard embedding.count == VoicePrompt.embeddingSize else {
            throw CosyVoiceError.unexpectedOutput(model: speakerEncoder.modelPath, name: speakerEncoder.outputs[0].name,
                                                  shape: output.shape, expected: "192 values")
        }
        return embedding
    }
}
