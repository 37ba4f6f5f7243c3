import Foundation

/// A model that is not installed as its engine needs it: which file, and what to do about it.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// A file (or folder) the model needs is absent; `remedy` says how to get it.
    case missingFile(model: String, path: String, remedy: String)
    /// A file has another size than the model's manifest records: damaged, cut short or another version.
    case sizeMismatch(model: String, path: String, expected: Int, actual: Int, remedy: String)
    /// A file's SHA-256 differs from the one the model's manifest records.
    case checksumMismatch(model: String, path: String, expected: String, actual: String, remedy: String)
    /// A file is there but cannot be read.
    case unreadableFile(model: String, path: String, reason: String)
    /// A model's name does not name one (`chorus models pull NAME`); `expected` says what would.
    case invalidName(String, expected: String)

    public var description: String {
        switch self {
        case .missingFile(let model, let path, let remedy):
            "The \(model) model is missing: \(path) not found. \(remedy)"
        case .sizeMismatch(let model, let path, let expected, let actual, let remedy):
            "\(path) has \(actual) bytes where the \(model) model has \(expected); it is damaged or another version. \(remedy)"
        case .checksumMismatch(let model, let path, let expected, let actual, let remedy):
            "\(path) has SHA-256 \(actual) where the \(model) model has \(expected); it is damaged or another version. \(remedy)"
        case .unreadableFile(let model, let path, let reason):
            "Cannot read \(path) of the \(model) model: \(reason). Check its permissions."
        case .invalidName(let name, let expected):
            "'\(name)' does not name a model; give \(expected)."
        }
    }

    public var errorDescription: String? { description }
}
