import ChorusModels
import Foundation

/// How a `SpeechServer` listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// The address to bind; the loopback unless told otherwise.
    public var host: String
    /// The port; 0 picks a free one (tests).
    public var port: Int
    /// When set, every `/v1` request must carry `Authorization: Bearer <key>`.
    public var apiKey: BearerKey?
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

    /// The history folder by default: `playground` in the model folder.
    public static var defaultHistoryFolder: URL { ModelStore.current.root.appendingPathComponent("playground", isDirectory: true) }

    public init(
        host: String = "127.0.0.1", port: Int = 8880, apiKey: BearerKey? = nil, maximumBodyBytes: Int = 64 << 10,
        maximumUploadBytes: Int = 25 << 20, maximumTextCharacters: Int = 4_096, queueLimit: Int = 8,
        historyFolder: URL? = ServerConfiguration.defaultHistoryFolder
    ) {
        self.host = host
        self.port = port
        self.apiKey = apiKey
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
