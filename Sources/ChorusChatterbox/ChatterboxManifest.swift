import ChorusModels

extension ChatterboxSynthesizer {
    /// The precisions `ResembleAI/chatterbox-turbo-ONNX` publishes, each a suffix of its four graphs' names.
    public enum Variant: String, CaseIterable, Sendable {
        case fp32, fp16, q8, q4, q4f16

        /// What the export appends to a graph's name ("language_model_q4f16.onnx").
        var suffix: String {
            switch self {
            case .fp32: ""
            case .fp16: "_fp16"
            case .q8: "_quantized"
            case .q4: "_q4"
            case .q4f16: "_q4f16"
            }
        }
    }

    /// The default model: the export at full precision.
    public static var manifest: ModelManifest { manifest(.fp32) }

    /// The four graphs of the export, in the order the engine runs them.
    public static let graphs = ["speech_encoder", "embed_tokens", "language_model", "conditional_decoder"]

    /// Chatterbox Turbo at `variant` (`<models>/chatterbox-<variant>`): the four ONNX graphs of the
    /// export's `onnx/` folder, each stored under the plain name the engine opens (`language_model.onnx`)
    /// with its weights under their own name (`language_model_q4f16.onnx_data`), and the GPT-2 tokenizer.
    /// The weights keep the export's name because each graph records where its weights are by that name and
    /// ONNX Runtime reads them from there. Written from the reference notes: Hugging Face was not reachable,
    /// so no size or hash is recorded (the hub's `X-Linked-Etag` gives each large file's SHA-256 when it is
    /// pulled).
    public static func manifest(_ variant: Variant) -> ModelManifest {
        let repo = "ResembleAI/chatterbox-turbo-ONNX"
        let files = graphs.flatMap { graph in
            let exported = "onnx/\(graph)\(variant.suffix)"
            return [
                ModelManifest.File(graph + ".onnx", from: .huggingFace(repo: repo, revision: "main", path: exported + ".onnx")),
                ModelManifest.File(graph + variant.suffix + ".onnx_data",
                                   from: .huggingFace(repo: repo, revision: "main", path: exported + ".onnx_data")),
            ]
        }
        let tokenizer = ["tokenizer.json", "tokenizer_config.json"].map {
            ModelManifest.File($0, from: .huggingFace(repo: repo, revision: "main", path: $0))
        }
        return ModelManifest(
            id: "chatterbox-\(variant.rawValue)", name: "Chatterbox Turbo (\(variant.rawValue))",
            files: files + tokenizer,
            source: "huggingface.co/\(repo) (onnx/*\(variant.suffix).onnx and .onnx_data, tokenizer.json)",
            licence: "MIT (Resemble AI)",
            installation: .pull(variant == .fp32 ? "chatterbox" : "chatterbox:\(variant.rawValue)"))
    }
}
