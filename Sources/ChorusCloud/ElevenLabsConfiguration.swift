import Foundation

/// What to ask ElevenLabs for: key, voice, model, rate and voice settings.
public struct ElevenLabsConfiguration: Sendable, Hashable {
    /// How the voice sounds; sent once at the start of a stream.
    public struct VoiceSettings: Sendable, Hashable, Encodable {
        /// 0 to 1: lower varies more from sentence to sentence, higher is steadier.
        public var stability: Double
        /// 0 to 1: how closely to follow the original voice.
        public var similarityBoost: Double
        /// 0 to 1: exaggeration of the voice's style; adds latency above 0.
        public var style: Double
        /// Boosts similarity to the original speaker, at some latency.
        public var useSpeakerBoost: Bool

        public init(stability: Double = 0.5, similarityBoost: Double = 0.75, style: Double = 0, useSpeakerBoost: Bool = true) {
            self.stability = stability
            self.similarityBoost = similarityBoost
            self.style = style
            self.useSpeakerBoost = useSpeakerBoost
        }

        enum CodingKeys: String, CodingKey {
            case stability
            case similarityBoost = "similarity_boost"
            case style
            case useSpeakerBoost = "use_speaker_boost"
        }
    }

    /// The environment variable the key is read from.
    public static let apiKeyVariable = "ELEVENLABS_API_KEY"
    /// The PCM rates the service offers.
    public static let sampleRates = [16_000, 22_050, 24_000, 44_100]

    public var apiKey: APIKey
    public var voiceID: String
    public var modelID: String
    /// One of `sampleRates`.
    public var sampleRate: Int
    public var voiceSettings: VoiceSettings
    /// The service root, `wss://api.elevenlabs.io`; tests point it at a local server.
    public var endpoint: String
    /// Seconds without new text after which the service ends the stream (`inactivity_timeout`, 1 to 180);
    /// nil leaves the service's default (20).
    public var inactivityTimeout: Int?

    public init(
        apiKey: APIKey, voiceID: String, modelID: String = "eleven_flash_v2_5", sampleRate: Int = 24_000,
        voiceSettings: VoiceSettings = VoiceSettings(), endpoint: String = "wss://api.elevenlabs.io",
        inactivityTimeout: Int? = nil
    ) {
        self.inactivityTimeout = inactivityTimeout
        self.apiKey = apiKey
        self.voiceID = voiceID
        self.modelID = modelID
        self.sampleRate = sampleRate
        self.voiceSettings = voiceSettings
        self.endpoint = endpoint
    }

    /// A configuration whose key comes from `ELEVENLABS_API_KEY`.
    public static func fromEnvironment(voiceID: String, modelID: String = "eleven_flash_v2_5") throws -> ElevenLabsConfiguration {
        ElevenLabsConfiguration(apiKey: try APIKey.fromEnvironment(apiKeyVariable), voiceID: voiceID, modelID: modelID)
    }

    func streamURL() throws -> String {
        var components = URLComponents(string: endpoint)
        components?.path = "/v1/text-to-speech/\(voiceID)/stream-input"
        components?.queryItems = [
            URLQueryItem(name: "model_id", value: modelID),
            URLQueryItem(name: "output_format", value: "pcm_\(sampleRate)"),
        ] + (inactivityTimeout.map { [URLQueryItem(name: "inactivity_timeout", value: String($0))] } ?? [])
        guard let url = components?.string, components?.host != nil else { throw CloudProviderError.invalidURL(endpoint) }
        return url
    }
}
