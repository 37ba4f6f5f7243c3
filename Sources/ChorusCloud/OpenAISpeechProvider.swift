import AsyncHTTPClient
import Foundation
import NIOCore
import ChorusStreaming
import ChorusText

/// Speech from an OpenAI-style `POST /v1/audio/speech` with `response_format: "pcm"`, whose body is
/// raw signed 16-bit mono at 24 kHz, streamed as it is made.
///
/// The endpoint takes whole texts, so text is cut into sentences as it arrives and each sentence is
/// one request; the next starts when the previous response has been read.
public struct OpenAISpeechProvider: TTSProvider {
    public var configuration: OpenAISpeechConfiguration

    public init(configuration: OpenAISpeechConfiguration) {
        self.configuration = configuration
    }

    public var outputFormat: AudioFormat {
        AudioFormat(sampleRate: 24_000, channels: 1, encoding: .int16)
    }

    static let providerName = "OpenAI speech"

    /// Reads each response body only as fast as the stream is read (see `AudioHandoff`), and starts
    /// the next sentence's request only once the previous body has been taken whole.
    public func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error> {
        let configuration = configuration
        return AudioHandoff.stream { send in
            do {
                var segmenter = SentenceSegmenter(maximumLength: configuration.maximumSentenceLength)
                for await piece in text {
                    for sentence in segmenter.append(piece) {
                        try await Self.speak(sentence, configuration, audio: send)
                    }
                }
                try Task.checkCancellation()
                for sentence in segmenter.finish() {
                    try await Self.speak(sentence, configuration, audio: send)
                }
            } catch {
                throw Self.userFacing(error, key: configuration.apiKey)
            }
        }
    }

    /// One request: streams the response body to `audio` as it arrives.
    private static func speak(
        _ sentence: String, _ configuration: OpenAISpeechConfiguration, audio: (Data) async throws -> Void
    ) async throws {
        var request = HTTPClientRequest(url: try configuration.speechURL())
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(configuration.apiKey.secret)")
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = try JSONEncoder().encode(SpeechRequest(
            model: configuration.model, input: sentence, voice: configuration.voice, responseFormat: "pcm",
            speed: configuration.speed, instructions: configuration.instructions))
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await configuration.client.execute(request, timeout: .seconds(configuration.timeoutSeconds), logger: nil)
        } catch {
            throw userFacing(error, key: configuration.apiKey)
        }
        guard response.status == .ok else {
            let text = try? await response.body.collect(upTo: 64 << 10)
            throw CloudProviderError.rejected(
                provider: providerName, status: Int(response.status.code),
                message: configuration.apiKey.redact(errorMessage(text) ?? response.status.reasonPhrase))
        }
        do {
            for try await buffer in response.body {
                try Task.checkCancellation()
                try await audio(Data(buffer.readableBytesView))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The head said 200; whatever breaks the body after it is the connection ending early.
            throw CloudProviderError.connectionClosed(provider: providerName)
        }
    }

    /// The `error.message` of an OpenAI error body, if it is one.
    private static func errorMessage(_ body: ByteBuffer?) -> String? {
        guard let body else { return nil }
        struct Envelope: Decodable {
            struct Detail: Decodable { var message: String }
            var error: Detail
        }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body.readableBytesView)) {
            return envelope.error.message
        }
        let text = String(decoding: body.readableBytesView.prefix(300), as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    static func userFacing(_ error: any Error, key: APIKey) -> any Error {
        switch error {
        case is CloudProviderError, is CancellationError:
            return error
        default:
            return CloudProviderError.connectionFailed(provider: providerName, reason: key.redact(String(describing: error)))
        }
    }

    /// The request body; field names as the API spells them.
    private struct SpeechRequest: Encodable {
        var model: String
        var input: String
        var voice: String
        var responseFormat: String
        var speed: Double
        var instructions: String?

        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed, instructions
            case responseFormat = "response_format"
        }
    }
}

/// What to ask an OpenAI-style speech endpoint for.
public struct OpenAISpeechConfiguration: Sendable {
    /// The environment variable the key is read from.
    public static let apiKeyVariable = "OPENAI_API_KEY"

    public var apiKey: APIKey
    public var model: String
    public var voice: String
    /// 0.25 to 4.
    public var speed: Double
    /// How to speak (tone, accent); not all models take it.
    public var instructions: String?
    /// The API root up to `/v1`; any compatible server works.
    public var baseURL: String
    /// The longest text sent in one request, in characters (the API takes up to 4096).
    public var maximumSentenceLength: Int
    /// Seconds one request may take, body included.
    public var timeoutSeconds: Int64
    /// The HTTP client; the process-wide shared one unless the app brings its own.
    public var client: HTTPClient

    public init(
        apiKey: APIKey, model: String = "gpt-4o-mini-tts", voice: String = "alloy", speed: Double = 1,
        instructions: String? = nil, baseURL: String = "https://api.openai.com/v1",
        maximumSentenceLength: Int = 1_000, timeoutSeconds: Int64 = 120, client: HTTPClient = .shared
    ) {
        self.apiKey = apiKey
        self.model = model
        self.voice = voice
        self.speed = speed
        self.instructions = instructions
        self.baseURL = baseURL
        self.maximumSentenceLength = maximumSentenceLength
        self.timeoutSeconds = timeoutSeconds
        self.client = client
    }

    /// A configuration whose key comes from `OPENAI_API_KEY`.
    public static func fromEnvironment(model: String = "gpt-4o-mini-tts", voice: String = "alloy") throws -> OpenAISpeechConfiguration {
        OpenAISpeechConfiguration(apiKey: try APIKey.fromEnvironment(apiKeyVariable), model: model, voice: voice)
    }

    func speechURL() throws -> String {
        let url = baseURL.hasSuffix("/") ? baseURL + "audio/speech" : baseURL + "/audio/speech"
        guard let components = URLComponents(string: url), components.host != nil else { throw CloudProviderError.invalidURL(baseURL) }
        return url
    }
}
