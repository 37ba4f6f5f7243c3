import ChorusModels
import Foundation

/// A NeuTTS model folder (`<models>/neutts`): the backbone ONNX with its KV cache, the backbone's
/// `tokenizer.json`, the NeuCodec decoder ONNX (fp32 or int8), optionally the NeuCodec encoder ONNX
/// (`encoder.onnx`, found by that name; made by scripts/export-neucodec-encoder.py) for `voice add --audio`, and `neutts.json` naming the backbone's language; voices in `voices/`.
public struct NeuTTSModelFolder: Sendable {
    public static let backbone = "backbone.onnx"
    public static let tokenizer = "tokenizer.json"
    public static let decoder = "decoder.onnx"
    public static let encoder = "encoder.onnx"
    /// `{"language": "de"}`: the espeak-ng language of the backbone (en-us when absent).
    public static let settings = "neutts.json"

    public let url: URL
    /// The espeak-ng language the backbone reads (upstream `BACKBONE_LANGUAGE_MAP`).
    public let language: String

    /// The folder at `url`, its files checked against the manifest (each missing one named).
    public init(url: URL) throws {
        try NeuTTSSynthesizer.manifest.validate(folder: url)
        self.url = url
        let settings = url.appendingPathComponent(Self.settings)
        if let data = FileManager.default.contents(atPath: settings.path) {
            struct Settings: Decodable { var language: String? }
            guard let parsed = try? JSONDecoder().decode(Settings.self, from: data) else {
                throw NeuTTSError.unexpectedModel(path: settings.path, reason: "is not JSON like {\"language\": \"de\"}")
            }
            language = parsed.language ?? "en-us"
        } else {
            language = "en-us"
        }
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    /// Where the folder's voices live.
    public var voices: URL { url.appendingPathComponent("voices", isDirectory: true) }
    /// Whether the folder has an encoder, so clips can become codes.
    public var hasEncoder: Bool { FileManager.default.fileExists(atPath: path(Self.encoder)) }
}

extension NeuTTSSynthesizer {
    /// The NeuTTS model folder. Brought by hand: Neuphonic publishes the backbones as PyTorch and GGUF and the
    /// decoder as ONNX; no sizes or hashes are recorded, since this project has not installed the real weights.
    public static let manifest = ModelManifest(
        id: "neutts", name: "NeuTTS Nano / Air",
        files: [ModelManifest.File(NeuTTSModelFolder.backbone), ModelManifest.File(NeuTTSModelFolder.tokenizer),
                ModelManifest.File(NeuTTSModelFolder.decoder),
                ModelManifest.File(NeuTTSModelFolder.encoder, optionalFor: "chorus voice add --audio (scripts/export-neucodec-encoder.py makes it)"),
                ModelManifest.File(NeuTTSModelFolder.settings, optionalFor: "a backbone that reads another language than en-us")],
        source: "huggingface.co/neuphonic (neutts-nano, neutts-air and their language variants; neucodec-onnx-decoder)",
        licence: "NeuTTS Open License 1.0 (Nano), Apache-2.0 (Air, NeuCodec)",
        installation: .manual(
            "Export the backbone to ONNX with its KV cache (Hugging Face optimum's past_key_values/present names) as "
                + "backbone.onnx beside its tokenizer.json, and put neuphonic/neucodec-onnx-decoder's model.onnx there as "
                + "decoder.onnx; for voices from clips, export the NeuCodec encoder with scripts/export-neucodec-encoder.py as "
                + "encoder.onnx; README's \"NeuTTS\" section has the details."))
}
