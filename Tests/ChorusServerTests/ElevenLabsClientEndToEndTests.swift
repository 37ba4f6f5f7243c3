import ChorusAudio
import ChorusCloud
@testable import ChorusServer
import ChorusTesting
import Foundation
import HummingbirdTesting
import Testing

/// Chorus's own ElevenLabs stream-input client, pointed at a Chorus server listening on 127.0.0.1.
@Suite struct ElevenLabsClientEndToEndTests {
    private func live(_ server: SpeechServer, _ body: @Sendable (String) async throws -> Void) async throws {
        // `.ahc`, not `.live`: `.live` also connects an unused client at once, with a 5 s timeout a loaded machine can exceed.
        try await server.makeApplication().test(.ahc(.http)) { client in
            try await body("ws://127.0.0.1:\(client.port!)")
        }
    }

    private func provider(_ endpoint: String, voice: String = "plain", model: String = "fake", rate: Int = 24_000,
                          key: String = "local-key") -> ElevenLabsProvider {
        ElevenLabsProvider(configuration: ElevenLabsConfiguration(
            apiKey: APIKey(key), voiceID: voice, modelID: model, sampleRate: rate, endpoint: endpoint))
    }

    private func speak(_ provider: ElevenLabsProvider, _ texts: [String]) async throws -> Data {
        let text = AsyncStream<String> { continuation in
            for piece in texts { continuation.yield(piece) }
            continuation.finish()
        }
        var data = Data()
        for try await piece in provider.stream(text: text) { data.append(piece) }
        return data
    }

    private let keyed = ServerConfiguration(port: 0, apiKey: BearerKey("local-key"))

    @Test func sentencesAreSpokenAsTheyCompleteAndTheStreamEnds() async throws {
        try await live(fakeServer(keyed)) { endpoint in
            let audio = try await speak(provider(endpoint), ["Hello wor", "ld. Second ", "sentence"])
            #expect(audio == pcm16(FakeSynthesizer.samples(for: "Hello world.")) + pcm16(FakeSynthesizer.samples(for: "Second sentence")))
        }
    }

    @Test func theRequestedRateIsServed() async throws {
        try await live(fakeServer(keyed)) { endpoint in
            let audio = try await speak(provider(endpoint, rate: 16_000), ["One sentence."])
            let expected = try Resampler.resample(FakeSynthesizer.samples(for: "One sentence."), from: 24_000, to: 16_000)
            #expect(audio == pcm16(expected))
        }
    }

    @Test func aWrongKeyIsRefusedSayingWhyAndAnUnknownVoiceSaysWhich() async throws {
        try await live(fakeServer(keyed)) { endpoint in
            let refused = await #expect(throws: CloudProviderError.self) {
                _ = try await speak(provider(endpoint, key: "wrong"), ["Hi."])
            }
            // Told in a message, which a refused upgrade (a bare 400) could not say.
            #expect(refused == .serverError(provider: "ElevenLabs", message: APIError.unauthorized.message))
            let voice = await #expect(throws: CloudProviderError.self) {
                _ = try await speak(provider(endpoint, voice: "rachel"), ["Hi."])
            }
            #expect(voice == .serverError(provider: "ElevenLabs", message: "Unknown voice 'rachel' for fake. Available: plain."))
        }
    }
}
