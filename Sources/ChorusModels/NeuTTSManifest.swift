extension ModelManifest {
    /// NeuTTS Nano (`<models>/neutts`): the backbone as ONNX (`backbone.onnx`, which no hub publishes:
    /// it is exported by hand), the backbone's tokenizer from `neuphonic/neutts-nano`, and the NeuCodec
    /// decoder from `neuphonic/neucodec-onnx-decoder` stored as `neucodec_decoder.onnx`. Written from
    /// the reference notes: Hugging Face was not reachable, so no size or hash is recorded.
    public static let neutts = ModelManifest(
        id: "neutts", name: "NeuTTS Nano",
        files: [
            File("backbone.onnx"),
            File("tokenizer.json", from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer.json")),
            File("tokenizer_config.json",
                 from: .huggingFace(repo: "neuphonic/neutts-nano", revision: "main", path: "tokenizer_config.json")),
            File("neucodec_decoder.onnx",
                 from: .huggingFace(repo: "neuphonic/neucodec-onnx-decoder", revision: "main", path: "model.onnx")),
        ],
        source: "huggingface.co/neuphonic/neutts-nano (tokenizer; the backbone exported to ONNX by hand), "
            + "huggingface.co/neuphonic/neucodec-onnx-decoder (model.onnx)",
        licence: "NeuTTS Open License 1.0 (backbone), Apache-2.0 (NeuCodec weights)",
        installation: .manual(
            "Export the neutts-nano backbone to ONNX as backbone.onnx (no hub publishes one) and put it in the neutts "
                + "model folder, then run `chorus models pull neutts` for the tokenizer and the NeuCodec decoder."))
}
