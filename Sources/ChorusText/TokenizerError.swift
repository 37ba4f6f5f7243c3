/// What went wrong loading or running a tokenizer, said so that the user knows what to fix.
public enum TokenizerError: Error, CustomStringConvertible, Equatable {
    /// A file could not be read.
    case unreadableFile(path: String, reason: String)
    /// A tokenizer folder lacks a file it needs.
    case missingFile(path: String, expected: String)
    /// A file was read but its content is not what the format requires.
    case malformedFile(path: String, reason: String)
    /// A tokenizer.json or .model uses a feature Chorus does not implement.
    case unsupported(path: String, feature: String)
    /// Text contained something the vocabulary cannot represent and there is no unknown token.
    case unknownToken(String)
    /// An id outside the vocabulary was given to decode.
    case unknownID(Int)
    /// Bytes to decode are not valid UTF-8.
    case invalidUTF8(offset: Int)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .missingFile(let path, let expected):
            return "\(path) has no \(expected); a byte-level BPE folder needs vocab.json and merges.txt"
        case .malformedFile(let path, let reason):
            return "\(path) is malformed: \(reason)"
        case .unsupported(let path, let feature):
            return "\(path) uses \(feature), which Chorus does not support"
        case .unknownToken(let text):
            return "the vocabulary cannot represent \(text.debugDescription) and defines no unknown token"
        case .unknownID(let id):
            return "token id \(id) is not in the vocabulary"
        case .invalidUTF8(let offset):
            return "the input is not valid UTF-8 (first bad byte at offset \(offset))"
        }
    }
}
