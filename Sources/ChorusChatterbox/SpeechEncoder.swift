import ChorusAudio
import ChorusONNX
import ChorusSpeech
import Foundation

/// Stage 0: a voice from a clip (`ChatterboxTurboTTS.prepare_conditionals`) on the export's `speech_encoder`:
/// the clip as mono at 24 kHz, refused when 5 s or shorter, loudness-normalised to -27 LUFS (BS.1770 with
/// pyloudnorm's arithmetic; the gain skipped when not finite), then the graph's four outputs kept as a voice.
///
/// upstream loads the clip with librosa's soxr resampler; Chorus resamples with its own (`Resampler`), so a
/// clip at another rate than 24 kHz reaches the graph within the resamplers' difference, not bit for bit.
public struct SpeechEncoder: Sendable {
    public let session: InferenceSession
    /// upstream asserts clips are longer than this.
    public static let minimumSeconds = 5.0
    /// The longest clip taken, in seconds. Upstream reads any length (its voice encoder takes the whole
    /// clip); Chorus bounds it so one upload cannot hold the encoder's memory without limit.
    public static let maximumSeconds = 60.0
    /// upstream's `norm_loudness` target.
    public static let targetLoudness = -27.0

    /// The stage over a loaded `speech_encoder` session; throws naming the file when its interface is not the export's.
    public init(session: InferenceSession) throws {
        self.session = session
        try session.checkExport(input: "audio_values", types: [.float32, .float16], rank: 2)
        try session.checkExport(output: "audio_features", types: [.float32, .float16], rank: 3)
        try session.checkExport(output: "audio_tokens", types: [.int64], rank: 2)
        try session.checkExport(output: "speaker_embeddings", types: [.float32, .float16], rank: 2)
        try session.checkExport(output: "speaker_features", types: [.float32, .float16], rank: 3)
    }

    /// `samples` (mono at `sampleRate`) as the graph takes them: 24 kHz, longer than 5 s, at -27 LUFS.
    public static func preparedClip(_ samples: [Float], sampleRate: Int) throws -> [Float] {
        let clip = sampleRate == ConditionalDecoder.sampleRate
            ? samples : try Resampler.resample(samples, from: sampleRate, to: ConditionalDecoder.sampleRate)
        let seconds = Double(clip.count) / Double(ConditionalDecoder.sampleRate)
        guard seconds > minimumSeconds else { throw ChatterboxError.clipTooShort(seconds: seconds) }
        guard seconds <= maximumSeconds else { throw ChatterboxError.clipTooLong(seconds: seconds, maximum: maximumSeconds) }
        guard clip.allSatisfy(\.isFinite) else { throw SpeechError.unusableClip(problem: "it holds samples that are not numbers") }
        return try LoudnessMeter(sampleRate: ConditionalDecoder.sampleRate).normalized(clip, to: targetLoudness)
    }

    /// The voice of `samples` (mono at `sampleRate`).
    public func encode(_ samples: [Float], sampleRate: Int) throws -> VoiceConditioning {
        let clip = try Self.preparedClip(samples, sampleRate: sampleRate)
        let type = session.input(named: "audio_values")?.elementType ?? .float32
        let outputs = try session.run(["audio_values": Tensor.floats(clip, shape: [1, clip.count], as: type)],
                                      outputs: ["audio_features", "audio_tokens", "speaker_embeddings", "speaker_features"])
        guard let features = outputs["audio_features"], let tokens = outputs["audio_tokens"],
              let speaker = outputs["speaker_embeddings"], let mel = outputs["speaker_features"],
              features.shape.count == 3, mel.shape.count == 3, mel.shape.last == VoiceConditioning.melBins
        else {
            throw ChatterboxError.unexpectedModel(path: session.modelPath, reason: "returned outputs of unexpected shapes")
        }
        return VoiceConditioning(
            audioFeatures: try features.floats(), conditioningLength: features.shape[1], width: features.shape[2],
            audioTokens: try tokens.array(of: Int64.self).map(Int.init), speakerEmbeddings: try speaker.floats(),
            speakerFeatures: try mel.floats(), promptFrames: mel.shape[1])
    }
}
