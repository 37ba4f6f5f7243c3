import ArgumentParser
import ChorusCloud
import ChorusGoogle
import ChorusStreaming
import Foundation

/// The cloud services `chorus speak --stream --provider` can speak with, by their command-line names.
enum CloudProviderChoice: String, CaseIterable, ExpressibleByArgument {
    case openai, elevenlabs, google

    /// The environment variable the service's own SDK reads its base URL from (Google's SDKs read
    /// none for Text-to-Speech, so that one is ours).
    var baseURLVariable: String {
        switch self {
        case .openai: "OPENAI_BASE_URL"
        case .elevenlabs: "ELEVENLABS_BASE_URL"
        case .google: GoogleSpeechConfiguration.endpointVariable
        }
    }

    /// The environment variable the key is read from (for Google, the first of two it tries).
    var apiKeyVariable: String {
        switch self {
        case .openai: OpenAISpeechConfiguration.apiKeyVariable
        case .elevenlabs: ElevenLabsConfiguration.apiKeyVariable
        case .google: GoogleSpeechConfiguration.apiKeyVariable
        }
    }

    /// The provider for these options; the key comes from the environment, the base URL from
    /// `baseURL`, else the service's variable, else the service itself.
    func provider(
        voice: String?, model: String?, speed: Float, baseURL: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any TTSProvider {
        let root = baseURL ?? environment[baseURLVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch self {
        case .openai:
            let key = try APIKey.fromEnvironment(apiKeyVariable, environment: environment)
            var configuration = OpenAISpeechConfiguration(apiKey: key, speed: Double(speed))
            if let voice { configuration.voice = voice }
            if let model { configuration.model = model }
            if let root { configuration.baseURL = root }
            return OpenAISpeechProvider(configuration: configuration)
        case .elevenlabs:
            let key = try APIKey.fromEnvironment(apiKeyVariable, environment: environment)
            guard let voice else {
                throw ValidationError("ElevenLabs needs a voice id: add --voice ID (the id of a voice in your ElevenLabs account).")
            }
            guard speed == 1 else {
                throw ValidationError("ElevenLabs' stream-input takes no speaking rate; leave --speed out.")
            }
            var configuration = ElevenLabsConfiguration(apiKey: key, voiceID: voice)
            if let model { configuration.modelID = model }
            // The SDKs' variable holds an https root; the stream-input socket lives on the same host.
            if let root { configuration.endpoint = Self.webSocketRoot(root) }
            return ElevenLabsProvider(configuration: configuration)
        case .google:
            return try googleProvider(voice: voice, model: model, speed: speed, root: root, environment: environment)
        }
    }

    /// The default Google voice: a Chirp 3 HD voice, the kind StreamingSynthesize takes.
    static let googleVoice = "en-US-Chirp3-HD-Charon"

    /// Google's provider: an API key, else an access token, from the environment; the voice name
    /// carries its language and model.
    private func googleProvider(
        voice: String?, model: String?, speed: Float, root: String?, environment: [String: String]
    ) throws -> any TTSProvider {
        guard model == nil else {
            throw ValidationError("Google's voice names carry their model (en-US-Chirp3-HD-Charon); leave --model out.")
        }
        guard (0.25...2).contains(speed) else {
            throw ValidationError("Google speaks at --speed 0.25 to 2; \(speed) is outside that.")
        }
        guard #available(macOS 15.0, iOS 18.0, *) else {
            throw ValidationError("The Google provider needs macOS 15 or later (gRPC Swift 2).")
        }
        var configuration = try GoogleSpeechConfiguration.fromEnvironment(voiceName: voice ?? Self.googleVoice, environment: environment)
        configuration.speakingRate = Double(speed)
        if let root { configuration.endpoint = root }
        return GoogleSpeechProvider(configuration: configuration)
    }

    /// `https://host` as `wss://host`, `http://` as `ws://`; a ws or wss URL unchanged.
    static func webSocketRoot(_ url: String) -> String {
        if url.hasPrefix("https://") { return "wss://" + url.dropFirst("https://".count) }
        if url.hasPrefix("http://") { return "ws://" + url.dropFirst("http://".count) }
        return url
    }
}
