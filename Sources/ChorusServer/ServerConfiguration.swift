import ChorusModels
import Foundation

/// How a `SpeechServer` listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// The address to bind; the loopback unless told otherwise.
    public var host: String
    /// The port; 0 picks a free one (tests).
    public var port: Int
    /// When set, every `/v1` and playground-history request must carry it (`Authorization: Bearer <key>`
    /// or `xi-api-key`); the page, `/health` and (unless `protectsMetrics`) `/metrics` stay open.
    public var apiKey: BearerKey?
    /// Whether `/metrics` needs the key too (it is open by default, as Prometheus scrapes without one).
    public var protectsMetrics: Bool
    /// The largest JSON request body, in bytes.
    public var maximumBodyBytes: Int
    /// The largest upload (a clip to clone, audio to transcribe), in bytes.
    public var maximumUploadBytes: Int
    /// The longest `input` one speech request may carry, in characters (OpenAI's limit is 4096).
    public var maximumTextCharacters: Int
    /// Requests one engine holds at once, running or waiting; the next gets 429.
    public var queueLimit: Int
    /// Where the playground keeps its history (`history.sqlite`); nil keeps none.
    public var historyFolder: URL?
    /// How long a connection may stay without a whole request head: a client that opens a connection and
    /// sends nothing, or half a head, or nothing more after a response, is closed after this. A stream-input
    /// WebSocket must send its key within it too.
    public var idleTimeout: Duration
    /// How long a request's whole body may take to arrive once its head has; then a 408.
    public var bodyTimeout: Duration
    /// How long one piece of audio may wait for a client that does not read it; then the request is
    /// cancelled, synthesis included.
    public var writeTimeout: Duration
    /// Connections open at once, lowered to fit the process's descriptor limit. Past it the oldest idle
    /// connection (one with no whole request waiting for its answer) is closed for the new one; when every one
    /// is busy, the server accepts no more until one closes (they wait in the listen backlog).
    public var maximumConnections: Int
    /// Connections one client address holds at once; past it that address's oldest idle connection is closed,
    /// or the new one when all of them are busy. Behind a proxy on the same machine every client shares its
    /// address: raise it to `maximumConnections` there.
    public var maximumConnectionsPerAddress: Int
    /// The most parts a multipart form (a clip upload, a transcription) may have.
    public var maximumFormParts: Int
    /// The installed voice each of OpenAI's voice names stands for (`chorus serve --openai-voices`).
    public var openAIVoices = OpenAIVoiceMap.standard
    /// How long an engine no request uses stays loaded; nil keeps every engine loaded once used. A cloning
    /// engine holds gigabytes, so a server that spoke with it once should not hold them all day.
    public var engineIdleUnload: Duration? = .seconds(300)

    /// The history folder by default: `playground` in the model folder.
    public static var defaultHistoryFolder: URL { ModelStore.current.root.appendingPathComponent("playground", isDirectory: true) }

    public init(
        host: String = "127.0.0.1", port: Int = 8880, apiKey: BearerKey? = nil, maximumBodyBytes: Int = 64 << 10,
        maximumUploadBytes: Int = 25 << 20, maximumTextCharacters: Int = 4_096, queueLimit: Int = 8,
        historyFolder: URL? = ServerConfiguration.defaultHistoryFolder, protectsMetrics: Bool = false,
        idleTimeout: Duration = .seconds(30), bodyTimeout: Duration = .seconds(60), writeTimeout: Duration = .seconds(60),
        maximumConnections: Int = 512, maximumConnectionsPerAddress: Int = 256, maximumFormParts: Int = 16
    ) {
        self.host = host
        self.port = port
        self.apiKey = apiKey
        self.protectsMetrics = protectsMetrics
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.maximumFormParts = maximumFormParts
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumUploadBytes = maximumUploadBytes
        self.maximumTextCharacters = maximumTextCharacters
        self.queueLimit = queueLimit
        self.historyFolder = historyFolder
    }
}

/// The key clients must present. It prints as `***`, and `matches` compares in time that does not
/// depend on where a wrong key first differs.
public struct BearerKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let secret: [UInt8]

    /// A key; nil when `secret` is empty or only blanks, since an empty key would let anyone in.
    public init?(_ secret: String) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        self.secret = Array(trimmed.utf8)
    }

    public var description: String { "***" }
    public var debugDescription: String { "BearerKey(***)" }

    /// Whether `header` (an `Authorization` value) is `Bearer <this key>`.
    public func matches(authorization header: String?) -> Bool {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return false }
        let offered = Array(header.utf8.dropFirst(7))
        // Every byte of the longer of the two is visited whatever the content, so the time taken says
        // nothing about how much of a guess was right.
        var difference = UInt8(offered.count == secret.count ? 0 : 1)
        for index in 0..<max(offered.count, secret.count) {
            let a = index < offered.count ? offered[index] : 0
            let b = index < secret.count ? secret[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
