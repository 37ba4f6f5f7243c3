import ChorusModels

extension CosyVoiceSynthesizer {
    /// The CosyVoice 3 model folder (`<models>/cosyvoice`): the 12 ONNX files of the community export
    /// and the Qwen2 tokenizer, plus the two models voice cloning reads. Brought by hand, so no size
    /// or hash is recorded: this project has not installed the real weights.
    public static let manifest = ModelManifest(
        id: "cosyvoice", name: "CosyVoice 3",
        files: ModelFolder.File.allCases.map { ModelManifest.File($0.rawValue) }
            + ModelFolder.tokenizerFiles.map { ModelManifest.File($0) }
            + VoiceExtractor.files.map { ModelManifest.File($0, optionalFor: "voice cloning (chorus voice add)") },
        source: "huggingface.co/ayousanz/cosy-voice3-onnx (the 12 ONNX files), CosyVoice-BlankEN (vocab.json, "
            + "merges.txt), FunAudioLLM/Fun-CosyVoice3-0.5B (campplus.onnx, speech_tokenizer_v3.onnx)",
        licence: "unknown: see each source's model card",
        installation: .manual(
            "Put the 12 ONNX files of the community export (huggingface.co/ayousanz/cosy-voice3-onnx) and the "
                + "CosyVoice-BlankEN vocab.json and merges.txt in the model folder; "
                + "for `chorus voice add` also campplus.onnx and speech_tokenizer_v3.onnx (FunAudioLLM/Fun-CosyVoice3-0.5B). "
                + "README's \"Voice cloning with CosyVoice 3\" has the details."))
}
