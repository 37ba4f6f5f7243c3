import ChorusFiles
import Foundation
import HTTPTypes
import Logging
import ChorusStreaming
import WSClient

/// Speech from ElevenLabs' WebSocket stream-input API: text goes up as it arrives, PCM comes back.
///
/// Protocol: connect to `/v1/text-to-speech/{voice}/stream-input?model_id=…&output_format=pcm_{rate}`
/// with the key in the `xi-api-key` header; send `{"text": " ", "voice_settings": …}` first, then
/// `{"text": piece}` per piece, then `{"text": ""}` to end. The server answers with
/// `{"audio": base64, …}` messages and finally `{"isFinal": true}`; errors come as `{"message": …}`.
///
/// The audio is `StreamedPCMProvider`'s: signed 16-bit mono at the configured rate, as `output_format=pcm_{rate}`
/// sends it, the WebSocket read only as fast as the stream is read.
public struct ElevenLabsProvider: TTSProvider, StreamedPCMProvider {
    public var configuration: ElevenLabsConfiguration

    public init(configuration: ElevenLabsConfiguration) {
        self.configuration = configuration
    }

    package var sampleRate: Int { configuration.sampleRate }

    static let providerName = "ElevenLabs"

    /// The largest reply taken, in one frame or several.
    static let largestMessage = 16 << 20

    package static func run(
        _ configuration: ElevenLabsConfiguration, text: AsyncStream<String>, audio: @escaping @Sendable (Data) async throws -> Void
    ) async throws {
        let url = try configuration.streamURL()
        var headers = HTTPFields()
        headers[HTTPField.Name("xi-api-key")!] = configuration.apiKey.secret
        let finished = Locked(false)
        let settings = configuration.voiceSettings
        // One reply carries a whole piece of audio as base64 (a second of 24 kHz PCM is 64 KB), far over the
        // client's default frame limit of 16 KB, which would close the socket on the first long sentence.
        try await WebSocketClient.connect(
            url: url, configuration: WebSocketClientConfiguration(maxFrameSize: Self.largestMessage, additionalHeaders: headers),
            logger: silentLogger
        ) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await outbound.write(.text(encode(ElevenLabsMessage.Start(voiceSettings: settings))))
                    for await piece in text where !piece.isEmpty {
                        try await outbound.write(.text(encode(ElevenLabsMessage.Text(text: piece))))
                    }
                    if Task.isCancelled { return }
                    // An empty text is the protocol's end of input.
                    try await outbound.write(.text(encode(ElevenLabsMessage.Text(text: ""))))
                }
                defer { group.cancelAll() }
                for try await message in inbound.messages(maxSize: Self.largestMessage) {
                    guard case .text(let json) = message else { continue }
                    let reply: ElevenLabsMessage.Reply
                    do {
                        reply = try JSONDecoder().decode(ElevenLabsMessage.Reply.self, from: Data(json.utf8))
                    } catch {
                        throw CloudProviderError.invalidResponse(provider: providerName, reason: "a message that is not JSON")
                    }
                    if let problem = reply.message ?? reply.error {
                        throw CloudProviderError.serverError(provider: providerName, message: configuration.apiKey.redact(problem))
                    }
                    if let encoded = reply.audio, !encoded.isEmpty {
                        guard let bytes = Data(base64Encoded: encoded) else {
                            throw CloudProviderError.invalidResponse(provider: providerName, reason: "audio that is not base64")
                        }
                        try await audio(bytes)
                    }
                    if reply.isFinal == true {
                        finished.withLock { $0 = true }
                        return
                    }
                }
            }
        }
        try Task.checkCancellation()
        guard finished.withLock({ $0 }) else { throw CloudProviderError.connectionClosed(provider: providerName) }
    }

    private static func encode<Message: Encodable>(_ message: Message) throws -> String {
        String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
    }

    package static func userFacing(_ error: any Error, configuration: ElevenLabsConfiguration, audioBytes: Int) -> any Error {
        userFacing(error, key: configuration.apiKey)
    }

    /// The error as the user should see it: ours unchanged, the transport's named and scrubbed of the key.
    static func userFacing(_ error: any Error, key: APIKey) -> any Error {
        switch error {
        case is CloudProviderError, is CancellationError:
            return error
        case let error as WebSocketClientError where error == .webSocketUpgradeFailed:
            return CloudProviderError.rejected(
                provider: providerName, status: nil,
                message: "the WebSocket upgrade was refused (unknown voice or model, or a bad key)")
        default:
            return CloudProviderError.connectionFailed(provider: providerName, reason: key.redact(String(describing: error)))
        }
    }
}

/// The stream-input wire messages.
enum ElevenLabsMessage {
    /// The first message: a single space, and the voice settings for the whole stream.
    struct Start: Encodable {
        let text = " "
        var voiceSettings: ElevenLabsConfiguration.VoiceSettings

        enum CodingKeys: String, CodingKey {
            case text
            case voiceSettings = "voice_settings"
        }
    }

    struct Text: Encodable {
        var text: String
    }

    /// Any server message: audio, the final marker, or an error.
    struct Reply: Decodable {
        var audio: String?
        var isFinal: Bool?
        var message: String?
        var error: String?
    }
}

/// A logger that drops everything, so no header (and no key) ever reaches a log.
let silentLogger = Logger(label: "chorus.streaming-cloud", factory: { _ in SwiftLogNoOpLogHandler() })
