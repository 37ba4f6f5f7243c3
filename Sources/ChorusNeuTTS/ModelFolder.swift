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
    /// NeuTTS Nano (`<models>/neutts`): the backbone as ONNX with its KV cache (`backbone.onnx`, which no hub
    /// publishes: it is exported by hand), the backbone's tokenizer from `neuphonic/neutts-nano`, the NeuCodec
    /// decoder from `neuphonic/neucodec-onnx-decoder` stored as `decoder.onnx` (the name the engine loads), and
    /// optionally the NeuCodec encoder `encoder.onnx` for voices from clips, which Neuphonic does not publish:
    /// `scripts/export-neucodec-encoder.py` makes it from the PyTorch codec and a pull keeps one put there by
    /// hand. Written from the reference notes: Hugging Face was not reachable, so no size or hash is recorded.
    public static let manifest = ModelManifest(
        id: "neutts", name: "NeuTTS Nano",
        files: [
            ModelManifest.File(NeuTTSModelFolder.backbone),
            ModelManifest.File(NeuTTSModelFolder.tokenizer,
                               from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer.json")),
            ModelManifest.File("tokenizer_config.json", optionalFor: "the tokenizer's class and added tokens",
                               from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer_config.json")),
            ModelManifest.File(NeuTTSModelFolder.decoder,
                               from: .huggingFace(repo: "neuphonic/neucodec-onnx-decoder", revision: "main", path: "model.onnx")),
            ModelManifest.File(NeuTTSModelFolder.encoder,
                               optionalFor: "voices from clips (scripts/export-neucodec-encoder.py makes it)"),
            ModelManifest.File(NeuTTSModelFolder.settings, optionalFor: "a backbone that reads another language than en-us"),
        ],
        source: "huggingface.co/neuphonic/neutts-nano (tokenizer; the backbone exported to ONNX by hand), "
            + "huggingface.co/neuphonic/neucodec-onnx-decoder (model.onnx)",
        licence: "NeuTTS Open License 1.0 (Nano), Apache-2.0 (Air, NeuCodec)",
        installation: .manual(
            "Export the backbone to ONNX with its KV cache (Hugging Face optimum's past_key_values/present names) as "
                + "backbone.onnx in the neutts model folder, then run `chorus models pull neutts` for the tokenizer and the "
                + "NeuCodec decoder; for voices from clips, export the NeuCodec encoder with scripts/export-neucodec-encoder.py "
                + "as encoder.onnx there; docs/engines.md's NeuTTS section has the details."))
}
