/// Stage two of a token-based engine: speech tokens in, audio out, stating the geometry a streaming
/// schedule needs (CosyVoice's flow and HiFT, Chatterbox's S3Gen, NeuTTS's codec decoder).
///
/// One value decodes one utterance: it may keep what earlier chunks computed (a mel so far, samples
/// already returned), so each call returns only new audio.
public protocol SpeechTokenDecoder {
    /// Samples per second of the audio it returns.
    var sampleRate: Int { get }
    /// Samples of audio each token becomes.
    var samplesPerToken: Int { get }
    /// Tokens past a chunk's end the decoder reads to finish that chunk's audio (0 for none).
    var lookahead: Int { get }

    /// The audio of `tokens` not yet returned: `tokens` are all the utterance's tokens so far (the last
    /// `lookahead` read as context only unless `final`), and the first `decoded` were turned into audio by
    /// earlier calls.
    mutating func decode(_ tokens: [Int], decoded: Int, final: Bool) throws -> [Float]
}
