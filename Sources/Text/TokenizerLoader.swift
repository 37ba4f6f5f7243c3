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
        if url.pathExtension.lowercased() == "json" { return try BPETokenizer(tokenizerJSON: url) }
        throw TokenizerError.unsupported(
            path: url.path, feature: "a tokenizer file that is neither tokenizer.json nor a folder with vocab.json")
    }
}
