import ChorusModels
import ChorusONNX
import Foundation

/// A Chatterbox Turbo model folder (`<models>/chatterbox-<variant>`): the export's four graphs under their
/// plain names (`speech_encoder.onnx`, `embed_tokens.onnx`, `language_model.onnx`, `conditional_decoder.onnx`,
/// each with its weights in the `.onnx_data` file the graph names when they are external: the export's name,
/// `language_model_q4f16.onnx_data`) and the tokenizer files; voices in `voices/`.
/// The speech encoder is needed only to add a voice from a clip.
public struct ChatterboxModelFolder: Sendable {
    public static let speechEncoder = "speech_encoder.onnx"
    public static let embedTokens = "embed_tokens.onnx"
    public static let languageModel = "language_model.onnx"
    public static let conditionalDecoder = "conditional_decoder.onnx"
    public static let tokenizer = "tokenizer.json"

    public let url: URL

    /// The folder at `url`; throws naming the first missing file the engine needs to speak.
    public init(url: URL) throws {
        for name in [Self.embedTokens, Self.languageModel, Self.conditionalDecoder, Self.tokenizer]
        where !FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path) {
            throw ModelError.missingFile(model: "Chatterbox Turbo", path: url.appendingPathComponent(name).path,
                                         remedy: "Run chorus models pull chatterbox.")
        }
        self.url = url
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    /// Where the folder's voices live.
    public var voices: URL { url.appendingPathComponent("voices", isDirectory: true) }
    /// Whether the folder has the speech encoder, so clips can become voices.
    public var hasSpeechEncoder: Bool { FileManager.default.fileExists(atPath: path(Self.speechEncoder)) }
}

extension InferenceSession {
    /// Throws naming the graph when its input or output `name` is missing, or declared with another element type
    /// or rank than the export's.
    func checkExport(input: String? = nil, output: String? = nil, types: [TensorElementType], rank: Int) throws {
        let name = input ?? output ?? ""
        guard let info = input.map({ self.input(named: $0) }) ?? output.map({ self.output(named: $0) }), let info else {
            throw ChatterboxError.unexpectedModel(path: modelPath, reason: "has no \(input != nil ? "input" : "output") \(name)")
        }
        if let type = info.elementType, !types.contains(type) {
            throw ChatterboxError.unexpectedModel(
                path: modelPath, reason: "declares \(name) as \(type), not \(types.map(\.description).joined(separator: " or "))")
        }
        guard info.shape.count == rank else {
            throw ChatterboxError.unexpectedModel(path: modelPath, reason: "declares \(name) with rank \(info.shape.count), not \(rank)")
        }
    }
}
