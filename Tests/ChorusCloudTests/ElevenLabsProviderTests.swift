import Foundation
import ChorusStreaming
import ChorusTesting
@testable import ChorusCloud
import Testing

@Suite struct ElevenLabsProviderTests {
    private func provider(_ endpoint: String, key: String = testKey) -> ElevenLabsProvider {
        var configuration = ElevenLabsConfiguration(apiKey: APIKey(key), voiceID: "voice-1", endpoint: endpoint)
        configuration.voiceSettings = .init(stability: 0.3, similarityBoost: 0.9, style: 0.2, useSpeakerBoost: false)
        return ElevenLabsProvider(configuration: configuration)
    }

    @Test func speaksTheDocumentedProtocol() async throws {
        try await withFakeElevenLabs { endpoint, recorder in
            let pieces = ["Hello ", "world. ", "How are you?"]
            let audio = try await collect(provider(endpoint).stream(text: textStream(pieces)))
            #expect(audio == pieces.map(FakeVoice.pcm(for:)).reduce(Data(), +))
            let log = recorder.snapshot
            #expect(log.paths.first?.contains("model_id=eleven_flash_v2_5") == true)
            #expect(log.paths.first?.contains("output_format=pcm_24000") == true)
            let first = try JSONSerialization.jsonObject(with: Data(log.messages[0].utf8)) as? [String: Any]
            #expect(first?["text"] as? String == " ")
            let settings = try #require(first?["voice_settings"] as? [String: Any])
            #expect(settings["stability"] as? Double == 0.3)
            #expect(settings["similarity_boost"] as? Double == 0.9)
            #expect(settings["style"] as? Double == 0.2)
            #expect(settings["use_speaker_boost"] as? Bool == false)
            #expect(log.messages.dropFirst().dropLast() == pieces.map { #"{"text":"\#($0)"}"# })
            #expect(log.messages.last == #"{"text":""}"#)
            #expect(!log.messages.contains { $0.contains(testKey) })
        }
    }

    @Test func aSlowServerIsPlayedInFullThroughTheController() async throws {
        try await withFakeElevenLabs(.slow) { endpoint, _ in
            let played = try await StreamingTTSController.samplesPlayed(by: provider(endpoint),
                                                                        for: ["One two three. ", "Four five six."])
            let expected = (FakeVoice.pcm(for: "One two three. ") + FakeVoice.pcm(for: "Four five six."))
                .withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Float($0) / 32768 }
            #expect(played == expected)
        }
    }

    @Test func anErrorMidStreamReachesTheCallerWithoutTheKey() async throws {
        try await withFakeElevenLabs(.errorMidStream) { endpoint, _ in
            let error = await #expect(throws: CloudProviderError.self) {
                _ = try await collect(provider(endpoint).stream(text: textStream(["A sentence long enough for two messages."])))
            }
            #expect(error == .serverError(provider: "ElevenLabs", message: "Quota exceeded for key ***"))
            #expect(!"\(String(describing: error))".contains(testKey))
        }
    }

    @Test func aDroppedConnectionIsReported() async throws {
        try await withFakeElevenLabs(.dropMidStream) { endpoint, _ in
            await #expect(throws: CloudProviderError.connectionClosed(provider: "ElevenLabs")) {
                _ = try await collect(provider(endpoint).stream(text: textStream(["A sentence long enough for two messages."])))
            }
        }
    }

    @Test func aWrongKeyIsRefused() async throws {
        try await withFakeElevenLabs { endpoint, _ in
            let error = await #expect(throws: CloudProviderError.self) {
                _ = try await collect(provider(endpoint, key: "wrong-key").stream(text: textStream(["Hi."])))
            }
            guard case .rejected(let provider, _, _) = error else {
                Issue.record("expected a refusal, got \(String(describing: error))")
                return
            }
            #expect(provider == "ElevenLabs")
        }
    }

    @Test func noServerIsAConnectionFailure() async throws {
        let error = await #expect(throws: CloudProviderError.self) {
            _ = try await collect(provider("ws://127.0.0.1:1").stream(text: textStream(["Hi."])))
        }
        guard case .connectionFailed(let provider, let reason) = error else {
            Issue.record("expected a connection failure, got \(String(describing: error))")
            return
        }
        #expect(provider == "ElevenLabs")
        #expect(!reason.contains(testKey))
    }

    @Test func keysComeFromTheEnvironmentAndNeverPrint() throws {
        #expect(throws: CloudProviderError.missingAPIKey(variable: "ELEVENLABS_API_KEY")) {
            try APIKey.fromEnvironment(ElevenLabsConfiguration.apiKeyVariable, environment: [:])
        }
        let key = try APIKey.fromEnvironment("ELEVENLABS_API_KEY", environment: ["ELEVENLABS_API_KEY": "sk-secret "])
        #expect(key.secret == "sk-secret")
        let configuration = ElevenLabsConfiguration(apiKey: key, voiceID: "v")
        #expect(!"\(configuration)".contains("sk-secret"))
        #expect(!String(reflecting: configuration).contains("sk-secret"))
    }
}
