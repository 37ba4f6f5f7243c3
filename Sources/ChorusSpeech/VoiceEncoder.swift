/// The stage that turns a reference clip into what an engine conditions on (speaker embedding, prompt
/// tokens, prompt mel): CosyVoice's CAMPPlus and speech tokenizer, Chatterbox's speech encoder, NeuTTS's
/// codec encoder.
public protocol VoiceEncoder {
    /// What a clip becomes.
    associatedtype EncodedVoice
    /// The rate clips are brought to before encoding.
    var sampleRate: Int { get }
    /// Encodes mono `samples` at `sampleRate` (resampled as needed); `transcript` is what the clip says, if known.
    func encode(samples: [Float], sampleRate: Int, transcript: String?) throws -> EncodedVoice
}
