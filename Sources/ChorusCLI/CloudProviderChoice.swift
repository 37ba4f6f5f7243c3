import ArgumentParser
import ChorusCloud
import ChorusStreaming
import Foundation

/// The cloud services `chorus speak --stream --provider` can speak with, by their command-line names.
enum CloudProviderChoice: String, CaseIterable, ExpressibleByArgument {
    case openai, elevenlabs

    /// The environment variable the service's own SDK reads its base URL from.
    var baseURLVariable: String {
        switch self {
        case .openai: "OPENAI_BASE_URL"
        case .elevenlabs: "ELEVENLABS_BASE_URL"
        }
    }

    /// The environment variable the key is read from.
    var apiKeyVariable: String {
        switch self {
        case .openai: OpenAISpeechConfiguration.apiKeyVariable
        case .elevenlabs: ElevenLabsConfiguration.apiKeyVariable
        }
    }

    /// The provider for these options; the key comes from the environment, the base URL from
    /// `baseURL`, else the service's variable, else the service itself.
    func provider(
        voice: String?, model: String?, speed: Float, baseURL: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any TTSProvider {
        let key = try APIKey.fromEnvironment(apiKeyVariable, environment: environment)
        let root = baseURL ?? environment[baseURLVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch self {
        case .openai:
            var configuration = OpenAISpeechConfiguration(apiKey: key, speed: Double(speed))
            if let voice { configuration.voice = voice }
            if let model { configuration.model = model }
            if let root { configuration.baseURL = root }
            return OpenAISpeechProvider(configuration: configuration)
        case .elevenlabs:
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
        }
    }

    /// `https://host` as `wss://host`, `http://` as `ws://`; a ws or wss URL unchanged.
    static func webSocketRoot(_ url: String) -> String {
        if url.hasPrefix("https://") { return "wss://" + url.dropFirst("https://".count) }
        if url.hasPrefix("http://") { return "ws://" + url.dropFirst("http://".count) }
        return url
    }
}
