import ChorusModels

extension CosyVoiceSynthesizer {
    /// The CosyVoice 3 model folder (`<models>/cosyvoice`): the 12 ONNX files of the community export,
    /// the Qwen2 tokenizer of CosyVoice-BlankEN, and the two models voice cloning reads. Hugging Face
    /// publishes no SHA-256 this project could read ahead (it was not reachable), so none is recorded:
    /// `chorus models pull` takes each large file's hash from the hub's `X-Linked-Etag` and records
    /// the first verified download's hashes for the rest.
    public static let manifest = ModelManifest(
        id: "cosyvoice", name: "CosyVoice 3",
        files: ModelFolder.File.allCases.map {
            ModelManifest.File($0.rawValue, from: .huggingFace(repo: exportRepo, revision: "main", path: $0.rawValue))
        }
            + ModelFolder.tokenizerFiles.map {
                ModelManifest.File($0, from: .huggingFace(repo: baseRepo, revision: "main", path: "CosyVoice-BlankEN/\($0)"))
            }
            + VoiceExtractor.files.map {
                ModelManifest.File($0, optionalFor: "voice cloning (chorus voice add)",
                                   from: .huggingFace(repo: baseRepo, revision: "main", path: $0))
            },
        source: "huggingface.co/\(exportRepo) (the 12 ONNX files), \(baseRepo) (CosyVoice-BlankEN vocab.json and "
            + "merges.txt, campplus.onnx, speech_tokenizer_v3.onnx)",
        licence: "Apache-2.0 (FunAudioLLM's CosyVoice 3 weights; the community export states no other)",
        installation: .pull("cosyvoice"))

    /// The community ONNX export of the language model, flow and vocoder.
    static let exportRepo = "ayousanz/cosy-voice3-onnx"
    /// FunAudioLLM's release, which carries the tokenizer and the voice-cloning models.
    static let baseRepo = "FunAudioLLM/Fun-CosyVoice3-0.5B-2512"
}
