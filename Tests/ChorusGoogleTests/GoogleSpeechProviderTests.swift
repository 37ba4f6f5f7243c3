import ChorusCloud
import ChorusStreaming
import ChorusTesting
import Foundation
@testable import ChorusGoogle
import Testing

@Suite struct GoogleSpeechProviderTests {
    private func provider(
        _ endpoint: String, credentials: GoogleSpeechConfiguration.Credentials = .apiKey(APIKey(testKey)),
        configure: (inout GoogleSpeechConfiguration) -> Void = { _ in }
    ) -> GoogleSpeechProvider {
        var configuration = GoogleSpeechConfiguration(
            credentials: credentials, voiceName: "en-US-Chirp3-HD-Charon", endpoint: endpoint)
        configure(&configuration)
        return GoogleSpeechProvider(configuration: configuration)
    }

    /// The error `stream` ends with, as `GoogleSpeechError`.
    private func failure(of stream: AsyncThrowingStream<Data, any Error>) async -> GoogleSpeechError? {
        await #expect(throws: GoogleSpeechError.self) { _ = try await collect(stream) }
    }

    @Test func speaksTheStreamingProtocol() async throws {
        try await withFakeGoogle { endpoint, recorder in
            let pieces = ["Hello ", "world. ", "How are you?"]
            let audio = try await collect(provider(endpoint) { $0.sampleRate = 16_000; $0.speakingRate = 1.25 }
                .stream(text: textStream(pieces)))
            #expect(audio == pieces.map(FakeVoice.pcm(for:)).reduce(Data(), +))
            let log = recorder.snapshot
            let config = try #require(log.requests.first?.streamingConfig)
            #expect(config.voice.name == "en-US-Chirp3-HD-Charon")
            #expect(config.voice.languageCode == "en-US")
            #expect(config.streamingAudioConfig.audioEncoding == .pcm)
            #expect(config.streamingAudioConfig.sampleRateHertz == 16_000)
            #expect(config.streamingAudioConfig.speakingRate == 1.25)
            #expect(log.requests.dropFirst().map(\.input.text) == pieces)
            #expect(log.apiKeys == [testKey])
            #expect(log.authorizations.isEmpty)
        }
    }

    @Test func anAccessTokenGoesAsBearerWithTheQuotaProject() async throws {
        try await withFakeGoogle { endpoint, recorder in
            let audio = try await collect(provider(endpoint, credentials: .accessToken(APIKey(testToken))) {
                $0.quotaProject = "my-project"
            }.stream(text: textStream(["Hi."])))
            #expect(audio == FakeVoice.pcm(for: "Hi."))
            let log = recorder.snapshot
            #expect(log.authorizations == ["Bearer \(testToken)"])
            #expect(log.quotaProjects == ["my-project"])
            #expect(log.apiKeys.isEmpty)
        }
    }

    @Test func chunksThatSplitSamplesPlayWhole() async throws {
        try await withFakeGoogle(.normal(pieceBytes: 333)) { endpoint, _ in
            let sink = ClockedNullSink(clock: ImmediateClock(), keepsSamples: true)
            let controller = StreamingTTSController(provider: provider(endpoint), sink: sink)
            try await controller.speak("Odd pieces cut samples in half.")
            #expect(sink.report.samples == samples(FakeVoice.pcm(for: "Odd pieces cut samples in half.")))
        }
    }

    @Test func aSlowServerIsPlayedInFullThroughTheController() async throws {
        try await withFakeGoogle(.slow) { endpoint, _ in
            let played = try await StreamingTTSController.samplesPlayed(by: provider(endpoint),
                                                                        for: ["One two three. ", "Four five six."])
            #expect(played == samples(FakeVoice.pcm(for: "One two three. ") + FakeVoice.pcm(for: "Four five six.")))
        }
    }

    @Test func anErrorMidStreamIsAnInterruptionWithoutTheKey() async throws {
        try await withFakeGoogle(.errorMidStream) { endpoint, _ in
            let error = await failure(of: provider(endpoint).stream(text: textStream(["A sentence."])))
            #expect(error == .interrupted(afterBytes: 960, message: "synthesis failed for key ***"))
            #expect(!String(describing: error).contains(testKey))
        }
    }

    @Test func aDroppedConnectionIsAnInterruption() async throws {
        try await withFakeGoogle(.stallAfterFirstPiece) { endpoint, _ in
            let port = try #require(URLComponents(string: endpoint)?.port)
            let relay = try await DroppingRelay(to: port)
            let stream = provider("http://127.0.0.1:\(relay.port)").stream(text: textStream(["A sentence."]))
            var received = 0
            let error = await #expect(throws: GoogleSpeechError.self) {
                for try await piece in stream {
                    received += piece.count
                    relay.drop()
                }
            }
            await relay.close()
            #expect(received == 960)
            guard case .interrupted(let bytes, _) = error else {
                Issue.record("expected an interruption, got \(String(describing: error))")
                return
            }
            #expect(bytes == 960)
        }
    }

    @Test func aWrongKeyIsAnAuthenticationErrorWithoutTheKey() async throws {
        try await withFakeGoogle { endpoint, _ in
            let error = await failure(of: provider(endpoint, credentials: .apiKey(APIKey("wrong-key"))).stream(text: textStream(["Hi."])))
            #expect(error == .authentication(message: "API key not valid: ***"))
            #expect(!String(describing: error).contains("wrong-key"))
        }
    }

    @Test func aWrongTokenIsAnAuthenticationError() async throws {
        try await withFakeGoogle { endpoint, _ in
            let error = await failure(of: provider(endpoint, credentials: .accessToken(APIKey("expired"))).stream(text: textStream(["Hi."])))
            guard case .authentication(let message) = error else {
                Issue.record("expected an authentication error, got \(String(describing: error))")
                return
            }
            #expect(!message.contains("expired"))
        }
    }

    @Test func anExhaustedQuotaIsReportedAsSuch() async throws {
        try await withFakeGoogle(.quotaExhausted) { endpoint, _ in
            let error = await failure(of: provider(endpoint).stream(text: textStream(["Hi."])))
            #expect(error == .quotaExceeded(message: "Quota exceeded for quota metric 'Streaming requests'"))
        }
    }

    @Test func aCallPastItsDeadlineIsReportedAsSuch() async throws {
        try await withFakeGoogle(.silent) { endpoint, _ in
            let error = await failure(of: provider(endpoint) { $0.timeout = .milliseconds(300) }.stream(text: textStream(["Hi."])))
            #expect(error == .deadlineExceeded)
        }
    }

    @Test func noServerIsUnavailable() async throws {
        let error = await failure(of: provider("http://127.0.0.1:1").stream(text: textStream(["Hi."])))
        guard case .unavailable(let message) = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(!message.contains(testKey))
    }

    @Test func credentialsAndEndpointComeFromTheEnvironment() throws {
        #expect(throws: GoogleSpeechError.missingCredentials(variables: ["GOOGLE_API_KEY", "GOOGLE_OAUTH_ACCESS_TOKEN"])) {
            try GoogleSpeechConfiguration.fromEnvironment(voiceName: "en-US-Chirp3-HD-Charon", environment: ["GOOGLE_API_KEY": " "])
        }
        let both = try GoogleSpeechConfiguration.fromEnvironment(voiceName: "de-DE-Chirp3-HD-Kore", environment: [
            "GOOGLE_API_KEY": "key-1 ", "GOOGLE_OAUTH_ACCESS_TOKEN": "token-1",
            "GOOGLE_TTS_ENDPOINT": "http://127.0.0.1:9000", "GOOGLE_CLOUD_QUOTA_PROJECT": "p",
        ])
        #expect(both.credentials == .apiKey(APIKey("key-1")))
        #expect(both.languageCode == "de-DE")
        #expect(try both.address() == .init(host: "127.0.0.1", port: 9000, usesTLS: false))
        #expect(both.quotaProject == "p")
        let token = try GoogleSpeechConfiguration.fromEnvironment(
            voiceName: "en-US-Chirp3-HD-Charon", environment: ["GOOGLE_OAUTH_ACCESS_TOKEN": "token-1"])
        #expect(token.credentials == .accessToken(APIKey("token-1")))
        #expect(try token.address() == .init(host: "texttospeech.googleapis.com", port: 443, usesTLS: true))
        #expect(!"\(token)".contains("token-1"))
        #expect(!String(reflecting: token).contains("token-1"))
    }

    @Test func badEndpointsAreRefusedByName() {
        for endpoint in ["texttospeech.googleapis.com", "http://127.0.0.1", "ftp://host:1", "https://host/v1/x"] {
            var configuration = GoogleSpeechConfiguration(credentials: .apiKey(APIKey(testKey)), voiceName: "en-US-x")
            configuration.endpoint = endpoint
            #expect(throws: GoogleSpeechError.invalidEndpoint(endpoint)) { try configuration.address() }
        }
    }
}

/// `pcm` as the pipeline's float samples.
func samples(_ pcm: Data) -> [Float] {
    pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Float($0) / 32768 }
}

