import ChorusCloud
import Foundation

/// What to ask Google Cloud Text-to-Speech for: credentials, voice, language, rate and where the service is.
public struct GoogleSpeechConfiguration: Sendable {
    /// How requests prove who sends them. Neither form ever prints its secret.
    public enum Credentials: Sendable, Hashable {
        /// An API key, sent as `x-goog-api-key`.
        case apiKey(APIKey)
        /// An OAuth 2 access token (`gcloud auth print-access-token`), sent as `authorization: Bearer`.
        case accessToken(APIKey)

        /// The secret itself, for scrubbing text that came back from the server.
        var secret: APIKey {
            switch self {
            case .apiKey(let key), .accessToken(let key): key
            }
        }
    }

    /// The variable an API key is read from.
    public static let apiKeyVariable = "GOOGLE_API_KEY"
    /// The variable an OAuth access token is read from when there is no API key (Google's Terraform
    /// provider reads the same one).
    public static let accessTokenVariable = "GOOGLE_OAUTH_ACCESS_TOKEN"
    /// The project billed for a user's access token, as google-auth reads it.
    public static let quotaProjectVariable = "GOOGLE_CLOUD_QUOTA_PROJECT"
    /// Where the service is, when not Google's own (`http://127.0.0.1:PORT` for a local server).
    public static let endpointVariable = "GOOGLE_TTS_ENDPOINT"
    /// Google's endpoint.
    public static let defaultEndpoint = "https://texttospeech.googleapis.com"

    public var credentials: Credentials
    /// A voice such as `en-US-Chirp3-HD-Charon`; streaming takes the Chirp 3 HD voices.
    public var voiceName: String
    /// A BCP-47 tag such as `en-US`; by default the one the voice name starts with.
    public var languageCode: String
    /// Hertz of the PCM asked for and yielded.
    public var sampleRate: Int
    /// 0.25 to 2; 1 is the voice's own pace.
    public var speakingRate: Double
    /// `https://host[:port]` (TLS) or `http://host:port` (plain HTTP/2, for a local server).
    public var endpoint: String
    /// The project billed, sent as `x-goog-user-project`; nil leaves it to the credentials.
    public var quotaProject: String?
    /// The longest a whole call may take, text and audio; nil for no limit.
    public var timeout: Duration?
    /// Bytes the server may send ahead of what has been read, per stream (HTTP/2 flow control);
    /// at 24 kHz the default is under 6 s of audio.
    public var flowControlWindow: Int

    public init(
        credentials: Credentials, voiceName: String, languageCode: String? = nil, sampleRate: Int = 24_000,
        speakingRate: Double = 1, endpoint: String = GoogleSpeechConfiguration.defaultEndpoint,
        quotaProject: String? = nil, timeout: Duration? = .seconds(600), flowControlWindow: Int = 256 << 10
    ) {
        self.credentials = credentials
        self.voiceName = voiceName
        self.languageCode = languageCode ?? Self.language(ofVoice: voiceName)
        self.sampleRate = sampleRate
        self.speakingRate = speakingRate
        self.endpoint = endpoint
        self.quotaProject = quotaProject
        self.timeout = timeout
        self.flowControlWindow = flowControlWindow
    }

    /// A configuration whose credentials come from `GOOGLE_API_KEY`, else `GOOGLE_OAUTH_ACCESS_TOKEN`,
    /// and whose endpoint and quota project come from their variables when set.
    public static func fromEnvironment(
        voiceName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> GoogleSpeechConfiguration {
        var configuration = GoogleSpeechConfiguration(
            credentials: try credentials(environment: environment), voiceName: voiceName)
        if let endpoint = value(endpointVariable, in: environment) { configuration.endpoint = endpoint }
        configuration.quotaProject = value(quotaProjectVariable, in: environment)
        return configuration
    }

    /// The API key if one is set, else the access token; throws `GoogleSpeechError.missingCredentials` when neither is.
    public static func credentials(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Credentials {
        if let key = value(apiKeyVariable, in: environment) { return .apiKey(APIKey(key)) }
        if let token = value(accessTokenVariable, in: environment) { return .accessToken(APIKey(token)) }
        throw GoogleSpeechError.missingCredentials(variables: [apiKeyVariable, accessTokenVariable])
    }

    private static func value(_ variable: String, in environment: [String: String]) -> String? {
        guard let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// `en-US` for `en-US-Chirp3-HD-Charon`: Google's voice names start with their language.
    static func language(ofVoice name: String) -> String {
        let parts = name.split(separator: "-", maxSplits: 2)
        return parts.count >= 2 ? "\(parts[0])-\(parts[1])" : name
    }

    /// Host, port and whether to use TLS, from `endpoint`.
    struct Address: Equatable {
        var host: String
        var port: Int
        var usesTLS: Bool
    }

    func address() throws -> Address {
        guard let components = URLComponents(string: endpoint), let host = components.host, !host.isEmpty,
              components.path.isEmpty || components.path == "/" else {
            throw GoogleSpeechError.invalidEndpoint(endpoint)
        }
        switch components.scheme {
        case "https": return Address(host: host, port: components.port ?? 443, usesTLS: true)
        case "http":
            guard let port = components.port else { throw GoogleSpeechError.invalidEndpoint(endpoint) }
            return Address(host: host, port: port, usesTLS: false)
        default: throw GoogleSpeechError.invalidEndpoint(endpoint)
        }
    }
}
