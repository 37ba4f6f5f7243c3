extension ModelManifest {
    /// NeuTTS Nano (`<models>/neutts`): the backbone as ONNX (`backbone.onnx`, which no hub publishes:
    /// it is exported by hand), the backbone's tokenizer from `neuphonic/neutts-nano`, the NeuCodec
    /// decoder from `neuphonic/neucodec-onnx-decoder` stored as `decoder.onnx` (the name the engine loads),
    /// and optionally the NeuCodec encoder `encoder.onnx` for `chorus voice add --audio`, which Neuphonic does
    /// not publish: `scripts/export-neucodec-encoder.py` makes it from the PyTorch codec and a pull keeps one
    /// put there by hand. Written from the reference notes: Hugging Face was not reachable, so no size or hash
    /// is recorded.
    public static let neutts = ModelManifest(
        id: "neutts", name: "NeuTTS Nano",
        files: [
            File("backbone.onnx"),
            File("tokenizer.json", from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer.json")),
            File("tokenizer_config.json",
                 from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer_config.json")),
            File("decoder.onnx",
                 from: .huggingFace(repo: "neuphonic/neucodec-onnx-decoder", revision: "main", path: "model.onnx")),
            File("encoder.onnx", optionalFor: "chorus voice add --engine neutts --audio; made by scripts/export-neucodec-encoder.py"),
        ],
        source: "huggingface.co/neuphonic/neutts-nano (tokenizer; the backbone exported to ONNX by hand), "
            + "huggingface.co/neuphonic/neucodec-onnx-decoder (model.onnx)",
        licence: "NeuTTS Open License 1.0 (backbone), Apache-2.0 (NeuCodec weights)",
        installation: .manual(
            "Export the neutts-nano backbone to ONNX as backbone.onnx (no hub publishes one) and put it in the neutts "
                + "model folder, then run `chorus models pull neutts` for the tokenizer and the NeuCodec decoder; for voices "
                + "from clips, export the NeuCodec encoder with scripts/export-neucodec-encoder.py as encoder.onnx there."))
}
