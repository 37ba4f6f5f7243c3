import ChorusModels

extension FastConformerRecognizer {
    /// A FastConformer CTC model folder (`<models>/fastconformer` by default). No such weights ship
    /// on PyPI, so the folder is brought by hand and no size or hash is recorded.
    public static let manifest = ModelManifest(
        id: "fastconformer", name: "FastConformer CTC",
        files: [
            .init(anyOf: ["encoder.onnx", "encoder_T*.onnx"]),
            .init(anyOf: ["tokenizer.model", "tokens.txt"]),
            .init(anyOf: ["pronunciation.onnx", "pronunciation_T*.onnx"], optionalFor: "the pronunciation head"),
            .init("pronunciation_vocab.txt", optionalFor: "the pronunciation head"),
        ],
        source: "an export you bring (NeMo FastConformer CTC: [1, 80, frames] features in, log-probabilities out)",
        licence: "that of the model you bring",
        installation: .manual("""
            No FastConformer weights ship with Chorus: bring an exported model (`chorus transcribe --help` lists its \
            files) and put it there, or pass its folder with --model.
            """))
}
