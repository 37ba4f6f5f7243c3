import ChorusModels
import ChorusRecognition
import ChorusText
import ChorusVAD

/// The models `chorus models` offers, by name: every engine's models (`Engine.models`, so a registered
/// engine's are here too) and the models the engines and listeners share (Silero VAD, wetext's grammars,
/// FastConformer).
public enum ModelCatalog {
    /// A model by the name `chorus models` takes (`kokoro`, `chatterbox:q4f16`).
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var manifest: ModelManifest

        public init(name: String, manifest: ModelManifest) {
            self.name = name
            self.manifest = manifest
        }
    }

    /// The models that belong to no one engine.
    public static let shared: [Entry] = [
        Entry(name: "silero-vad", manifest: SileroVAD.manifest),
        Entry(name: "wetext", manifest: WeTextNormalizer.manifest),
        Entry(name: "fastconformer", manifest: FastConformerRecognizer.manifest),
    ]

    /// The models `scripts/setup.sh` installs.
    public static let defaults = ["kokoro", "piper", "silero-vad", "wetext"]

    /// Every model `list` shows: each engine's, in the engines' order, then the shared ones.
    public static var listed: [Entry] { Engine.registered.flatMap(\.models) + shared }

    /// What `name` stands for: a listed name, or `engine:variant` for an engine whose variants cannot be
    /// listed (`piper:en_US-lessac-medium`); throws a sentence naming the names otherwise.
    public static func manifest(named name: String) throws -> ModelManifest {
        let entries = listed
        if let entry = entries.first(where: { $0.name == name.lowercased() }) { return entry.manifest }
        let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, let engine = Engine.registered.first(where: { $0.id == parts[0].lowercased() }) {
            if let variant = engine.modelVariant { return try variant(parts[1]) }
            let variants = engine.models.map(\.name)
            throw ModelError.invalidName(name, expected: "one of \(variants.joined(separator: ", "))")
        }
        throw ModelError.invalidName(name, expected: "one of the names `chorus models list` shows ("
            + entries.map(\.name).joined(separator: ", ") + ")")
    }
}
