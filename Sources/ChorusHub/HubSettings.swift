import Foundation

/// Where `ModelPuller` downloads from and how: the conventions `huggingface-cli` users already have
/// (`HF_ENDPOINT`, `HF_TOKEN` or the token file, `HF_HUB_OFFLINE`, the Hugging Face cache) and Chorus's own.
public struct HubSettings: Sendable {
    /// The Hugging Face endpoint (`HF_ENDPOINT`, default `https://huggingface.co`), no trailing slash.
    public var endpoint: String
    /// PyPI's base address for its JSON API (`CHORUS_PYPI_ENDPOINT`, default `https://pypi.org`).
    public var pypiEndpoint: String
    /// The token sent to the Hugging Face endpoint for gated repositories, never printed.
    public var token: String?
    /// Only what is installed (or in the Hugging Face cache) is used; nothing is downloaded.
    public var offline: Bool
    /// Why `offline` is on, as the variable that set it ("CHORUS_OFFLINE=1").
    public var offlineReason: String?
    /// The Hugging Face hub cache (`HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`).
    public var huggingFaceCache: URL
    /// Where wheels are kept once downloaded (`CHORUS_DOWNLOADS`, else `<cache>/chorus/downloads`, as setup.sh).
    public var downloads: URL
    /// At most this many files download at once.
    public var parallelDownloads: Int
    /// How failed requests are retried.
    public var retry: RetryPolicy
    /// A connection that delivers nothing for this long is dropped and the request retried.
    public var readTimeout: TimeInterval
    /// The most bytes a file whose size no manifest or listing records may have (16 GiB by default,
    /// above any model file Chorus installs); a hub that sends more is stopped and the copy deleted.
    public var maximumUnknownFileBytes: Int

    public init(endpoint: String = "https://huggingface.co", pypiEndpoint: String = "https://pypi.org", token: String? = nil,
                offline: Bool = false, offlineReason: String? = nil, huggingFaceCache: URL, downloads: URL,
                parallelDownloads: Int = 4, retry: RetryPolicy = RetryPolicy(), readTimeout: TimeInterval = 60,
                maximumUnknownFileBytes: Int = 16 << 30) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.pypiEndpoint = pypiEndpoint.hasSuffix("/") ? String(pypiEndpoint.dropLast()) : pypiEndpoint
        self.token = token
        self.offline = offline
        self.offlineReason = offlineReason
        self.huggingFaceCache = huggingFaceCache
        self.downloads = downloads
        self.parallelDownloads = max(1, parallelDownloads)
        self.retry = retry
        self.readTimeout = readTimeout
        self.maximumUnknownFileBytes = maximumUnknownFileBytes
    }

    /// The settings `environment` describes; `home` is the user's home folder.
    public init(environment: [String: String], home: URL = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)) {
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? home.appendingPathComponent(".cache", isDirectory: true)
        let hfHome = environment["HF_HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? cache.appendingPathComponent("huggingface", isDirectory: true)
        let hubCache = environment["HF_HUB_CACHE"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? hfHome.appendingPathComponent("hub", isDirectory: true)
        let downloads = environment["CHORUS_DOWNLOADS"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? cache.appendingPathComponent("chorus/downloads", isDirectory: true)
        let offlineVariable = ["CHORUS_OFFLINE", "HF_HUB_OFFLINE"].first { Self.isTrue(environment[$0]) }
        self.init(endpoint: environment["HF_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://huggingface.co",
                  pypiEndpoint: environment["CHORUS_PYPI_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://pypi.org",
                  token: Self.token(environment: environment, huggingFaceHome: hfHome),
                  offline: offlineVariable != nil, offlineReason: offlineVariable.map { "\($0)=\(environment[$0]!)" },
                  huggingFaceCache: hubCache, downloads: downloads)
    }

    /// `HF_TOKEN`, else the file `HF_TOKEN_PATH` names, else `$HF_HOME/token` (what `huggingface-cli login` writes).
    static func token(environment: [String: String], huggingFaceHome: URL) -> String? {
        if let token = environment["HF_TOKEN"], !token.isEmpty { return token }
        let file = environment["HF_TOKEN_PATH"].map { URL(fileURLWithPath: $0) }
            ?? huggingFaceHome.appendingPathComponent("token")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Whether an environment flag is set the way huggingface_hub reads one ("1", "true", "yes", "on").
    static func isTrue(_ value: String?) -> Bool {
        guard let value else { return false }
        return ["1", "true", "yes", "on"].contains(value.lowercased())
    }
}

/// Retries with exponential back-off: `attempts` tries in all, waiting `initialDelay`, then twice
/// that, and so on, between them.
public struct RetryPolicy: Sendable {
    public var attempts: Int
    public var initialDelay: TimeInterval

    public init(attempts: Int = 5, initialDelay: TimeInterval = 1) {
        self.attempts = max(1, attempts)
        self.initialDelay = initialDelay
    }

    /// The wait before try number `attempt + 1` (`attempt` counting from 1).
    func delay(after attempt: Int) -> TimeInterval {
        initialDelay * pow(2, Double(attempt - 1))
    }
}
