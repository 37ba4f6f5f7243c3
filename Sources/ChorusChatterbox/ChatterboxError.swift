import ChorusSpeech
import Foundation

/// What can go wrong in the Chatterbox Turbo engine; each says what failed and what to do.
public enum ChatterboxError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A graph's inputs or outputs are not the ones the engine drives.
    case unexpectedModel(path: String, reason: String)
    /// The tokenizer files and the embed_tokens id convention disagree.
    case tokenizerConvention(path: String, reason: String)
    /// A voice folder is missing a file or holds tensors of the wrong shape.
    case invalidVoice(path: String, reason: String)
    /// A voice clip is too short for upstream's conditioning.
    case clipTooShort(seconds: Double)
    /// A voice clip is longer than the speech encoder is given.
    case clipTooLong(seconds: Double, maximum: Double)
    /// The prompt and the longest generation do not fit the language model's positions.
    case promptTooLong(tokens: Int, limit: Int)
    /// The voice's prompt tokens leave no room for speech in what one decoder call holds.
    case voiceTooLong(tokens: Int, limit: Int)
    /// The language model's first logits were all -inf, so no speech token can be drawn.
    case noFiniteLogit
    /// An environment variable of the engine holds a value it cannot use.
    case invalidSetting(variable: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .unexpectedModel(let path, let reason):
            "\(path) \(reason); use the four graphs of ResembleAI/chatterbox-turbo-ONNX (chorus models pull chatterbox)."
        case .tokenizerConvention(let path, let reason):
            "\(path) \(reason); use the tokenizer.json that came with the Chatterbox Turbo ONNX export."
        case .invalidVoice(let path, let reason):
            "The Chatterbox voice \(path) \(reason); add it again with chorus voice add --engine chatterbox --audio CLIP.wav."
        case .clipTooShort(let seconds):
            "The voice clip is \(String(format: "%.2f", seconds)) s long; Chatterbox needs more than 5 s of speech (5-10 s is best)."
        case .clipTooLong(let seconds, let maximum):
            "The voice clip is \(String(format: "%.1f", seconds)) s long; Chatterbox takes at most \(String(format: "%.0f", maximum)) s (5-10 s is best), so trim it."
        case .promptTooLong(let tokens, let limit):
            "The prompt is \(tokens) positions, leaving no room for speech within the language model's \(limit); use shorter text."
        case .voiceTooLong(let tokens, let limit):
            "The voice's prompt is \(tokens) speech tokens, leaving no room for speech within the \(limit) the decoder takes at once; add the voice again from a shorter clip (5-10 s)."
        case .noFiniteLogit:
            "The language model scored every speech token -inf at the first draw; the graph or its weights are damaged: pull the model again (chorus models pull chatterbox)."
        case .invalidSetting(let variable, let value, let expected):
            "\(variable) is '\(value)'; set it to \(expected), or unset it."
        }
    }

    public var errorDescription: String? { description }
}

extension ChatterboxError: CallerMistake {
    /// Clips of the wrong length, texts and voices too long for the graphs are the caller's to fix.
    public var isCallersMistake: Bool {
        switch self {
        case .clipTooShort, .clipTooLong, .promptTooLong, .voiceTooLong: true
        case .unexpectedModel, .tokenizerConvention, .invalidVoice, .noFiniteLogit, .invalidSetting: false
        }
    }
}
