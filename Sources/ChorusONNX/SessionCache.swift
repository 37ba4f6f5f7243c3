/// Loads sessions on first use, keeps one per model file and options, and unloads them on request.
///
/// Concurrent requests for the same model share one load instead of loading it twice.
public actor SessionCache {
    private struct Key: Hashable {
        var path: String
        var options: OptionsKey
    }

    // SessionOptions holds only value types, so its description is a faithful key.
    private struct OptionsKey: Hashable {
        var text: String
        init(_ options: SessionOptions) { text = String(describing: options) }
    }

    private var sessions: [Key: InferenceSession] = [:]
    private var loading: [Key: Task<InferenceSession, Error>] = [:]
    private let runtime: OnnxRuntime?

    /// A cache that loads through `runtime` (the shared one when `nil`).
    public init(runtime: OnnxRuntime? = nil) {
        self.runtime = runtime
    }

    /// The session for `path`, loading it if no session with these options is cached.
    public func session(for path: String, options: SessionOptions = SessionOptions()) async throws -> InferenceSession {
        let key = Key(path: path, options: OptionsKey(options))
        if let cached = sessions[key] { return cached }
        if let pending = loading[key] { return try await pending.value }
        let runtime = self.runtime
        let task = Task.detached {
            try InferenceSession(modelPath: path, options: options, runtime: runtime)
        }
        loading[key] = task
        defer { loading[key] = nil }
        let session = try await task.value
        sessions[key] = session
        return session
    }

    /// Model files with a loaded session.
    public var loadedModels: [String] { Array(Set(sessions.keys.map(\.path))).sorted() }

    /// Drops every cached session for `path`; the memory is freed once no caller still holds one.
    public func unload(_ path: String) {
        sessions = sessions.filter { $0.key.path != path }
    }

    /// Drops every cached session (for example on a memory warning).
    public func unloadAll() {
        sessions.removeAll()
    }
}
