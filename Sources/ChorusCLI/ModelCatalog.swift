import ChorusCosyVoice
import ChorusKokoro
import ChorusModels
import ChorusPiper
import ChorusRecognition
import ChorusText
import ChorusVAD

/// The short names `chorus models` accepts (`kokoro`, `piper:en_US-lessac-medium`,
/// `chatterbox:q4f16`) and the manifest each stands for.
enum ModelCatalog {
    /// The names `list` shows, in order; `chatterbox` and `piper` take a `:variant` too.
    static let names = ["kokoro", "piper", "silero-vad", "wetext", "cosyvoice", "chatterbox", "neutts", "fastconformer"]

    /// The models `setup.sh` installs.
    static let defaults = ["kokoro", "piper", "silero-vad", "wetext"]

    /// What `name` stands for; throws a sentence listing the names when it is unknown.
    static func manifest(named name: String) throws -> ModelManifest {
        let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
        let base = parts.first ?? ""
        let variant = parts.count > 1 ? parts[1] : nil
        switch (base, variant) {
        case ("kokoro", nil): return KokoroSynthesizer.manifest
        case ("piper", nil): return PiperSynthesizer.manifest
        case ("piper", let voice?): return try piperVoice(voice)
        case ("silero-vad", nil): return SileroVAD.manifest
        case ("wetext", nil): return WeTextNormalizer.manifest
        case ("cosyvoice", nil): return CosyVoiceSynthesizer.manifest
        case ("chatterbox", let variant):
            guard let chosen = ModelManifest.ChatterboxVariant(rawValue: variant ?? "fp32") else {
                throw CatalogError("chatterbox has no variant \(variant ?? ""); choose one of "
                    + ModelManifest.ChatterboxVariant.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            return ModelManifest.chatterbox(chosen)
        case ("neutts", nil): return ModelManifest.neutts
        case ("fastconformer", nil): return FastConformerRecognizer.manifest
        default:
            throw CatalogError("No model is called \(name); `chorus models list` shows the names (\(names.joined(separator: ", "))).")
        }
    }

    /// A Piper voice of `rhasspy/piper-voices` by its name (`en_US-lessac-medium`): the model and its
    /// config in `<models>/piper-<voice>`. The repository publishes no hash the manifest could carry;
    /// the hub's `X-Linked-Etag` checks the model and the first download records the config's.
    static func piperVoice(_ voice: String) throws -> ModelManifest {
        let fields = voice.split(separator: "-").map(String.init)
        guard fields.count == 3, let language = fields[0].split(separator: "_").first,
              fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            throw CatalogError("\(voice) is not a Piper voice name; they read language_REGION-name-quality, as en_US-lessac-medium.")
        }
        let folder = "\(language)/\(fields[0])/\(fields[1])/\(fields[2])"
        let repo = "rhasspy/piper-voices"
        return ModelManifest(
            id: "piper-\(voice)", name: "Piper \(voice)",
            files: [
                .init("\(voice).onnx", from: .huggingFace(repo: repo, revision: "main", path: "\(folder)/\(voice).onnx")),
                .init("\(voice).onnx.json", from: .huggingFace(repo: repo, revision: "main", path: "\(folder)/\(voice).onnx.json")),
                .init("MODEL_CARD", optionalFor: "the voice's dataset and licence",
                      from: .huggingFace(repo: repo, revision: "main", path: "\(folder)/MODEL_CARD")),
            ],
            source: "huggingface.co/\(repo) (\(folder))", licence: "per voice: see its MODEL_CARD",
            installation: .pull("piper:\(voice)"))
    }

    /// Every model `list` shows: the names above, Chatterbox once per variant.
    static var listed: [(name: String, manifest: ModelManifest)] {
        names.flatMap { name -> [(String, ModelManifest)] in
            if name == "chatterbox" {
                return ModelManifest.ChatterboxVariant.allCases.map {
                    ($0 == .fp32 ? "chatterbox" : "chatterbox:\($0.rawValue)", ModelManifest.chatterbox($0))
                }
            }
            return (try? manifest(named: name)).map { [(name, $0)] } ?? []
        }
    }
}

/// A model name `chorus models` does not know, as the sentence to show.
struct CatalogError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
