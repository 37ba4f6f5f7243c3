import Foundation

/// Opens whichever tokenizer a path holds.
public enum TokenizerLoader {
    /// The tokenizer at `url`: a folder with vocab.json + merges.txt (or a tokenizer.json), a
    /// Hugging Face tokenizer.json, or a SentencePiece .model file.
    public static func load(_ url: URL) throws -> any TextTokenizer {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw TokenizerError.unreadableFile(path: url.path, reason: "no such file or folder")
        }
        if isFolder.boolValue { return try BPETokenizer(folder: url) }
        switch url.pathExtension.lowercased() {
        case "json":
            return try BPETokenizer(tokenizerJSON: url)
        case "model":
            return try SentencePieceTokenizer(contentsOf: url)
        default:
            throw TokenizerError.unsupported(
                path: url.path, feature: "a tokenizer file that is neither a tokenizer.json nor a SentencePiece .model")
        }
    }
}
