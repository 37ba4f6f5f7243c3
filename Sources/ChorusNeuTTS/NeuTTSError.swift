import ChorusSpeech
import Foundation

/// What can go wrong in the NeuTTS engine; each says what failed and what to do.
public enum NeuTTSError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The backbone's tokenizer lacks a token upstream's prompt needs.
    case missingToken(String, tokenizer: String)
    /// A reference code outside NeuCodec's 65,536 codes.
    case codeOutOfRange(Int)
    /// The prompt alone fills the backbone's context.
    case promptTooLong(tokens: Int, context: Int)
    /// A model's inputs or outputs are not the ones the engine drives.
    case unexpectedModel(path: String, reason: String)
    /// Generation produced no speech codes to decode.
    case noSpeechCodes
    /// A voice could not be read or made.
    case invalidVoice(String)
    /// The folder has no encoder, so a clip cannot become codes.
    case noEncoder(folder: String)

    public var description: String {
        switch self {
        case .missingToken(let token, let tokenizer):
            "The tokenizer \(tokenizer) has no \(token); use the tokenizer.json that came with the NeuTTS backbone."
        case .codeOutOfRange(let code):
            "The reference code \(code) is outside NeuCodec's 0-65535; check that the codes were made by NeuCodec."
        case .promptTooLong(let tokens, let context):
            "The prompt is \(tokens) tokens, leaving no room in the backbone's \(context)-token context; use a shorter reference or text."
        case .unexpectedModel(let path, let reason):
            "\(path) \(reason); use the NeuTTS backbone and NeuCodec exports the README describes."
        case .noSpeechCodes:
            "The backbone generated no speech codes; check that the backbone and tokenizer belong together."
        case .invalidVoice(let reason):
            "\(reason)"
        case .noEncoder(let folder):
            "There is no NeuCodec encoder (encoder.onnx) in \(folder): Neuphonic publishes pre-encoded references and "
                + "no encoder export, so add the voice from its codes with --codes CODES.npy and --text, or make encoder.onnx "
                + "from the PyTorch codec with scripts/export-neucodec-encoder.py."
        }
    }

    public var errorDescription: String? { description }
}

extension NeuTTSError: CallerMistake {
    /// A voice's codes or transcript, a text too long for the context and a code outside the codebook are the
    /// caller's to fix; a model folder that lacks a token or a file is the installation's.
    public var isCallersMistake: Bool {
        switch self {
        case .codeOutOfRange, .promptTooLong, .invalidVoice: true
        case .missingToken, .unexpectedModel, .noSpeechCodes, .noEncoder: false
        }
    }
}
