/// Stage one of a token-based engine: text (and a voice's conditioning) in, discrete speech tokens out,
/// one at a time (CosyVoice's LLM, Chatterbox's T3, NeuTTS's backbone).
///
/// A stage on its own can be timed, replaced or faked in a test; the engine's facade wires the stages.
public protocol SpeechTokenGenerator {
    /// What one generation reads: the text's token ids and whatever the voice contributes.
    associatedtype Prompt
    /// Speech tokens per second of audio.
    var tokensPerSecond: Int { get }
    /// Generates the speech tokens of `prompt`, calling `onToken` with each as it is drawn (throwing
    /// from it ends the generation); returns them all.
    func generate(_ prompt: Prompt, onToken: (Int) throws -> Void) throws -> [Int]
}
