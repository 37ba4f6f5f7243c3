import Foundation
import ChorusStreaming
import ChorusTesting
@testable import ChorusCloud
import Testing

@Suite struct OpenAISpeechProviderTests {
    private func provider(_ baseURL: String, model: String = "fake", key: String = testKey, timeout: Int64 = 120) -> OpenAISpeechProvider {
        OpenAISpeechProvider(configuration: OpenAISpeechConfiguration(
            apiKey: APIKey(key), model: model, voice: "coral", speed: 1.5, instructions: "Cheerful.", baseURL: baseURL,
            timeoutSeconds: timeout))
    }

    @Test func streamsOneRequestPerSentenceWithTheDocumentedFields() async throws {
        try await withFakeOpenAI { baseURL, recorder in
            let audio = try await collect(provider(baseURL).stream(text: textStream(["Hello wor", "ld. Second ", "sentence"])))
            #expect(audio == FakeVoice.pcm(for: "Hello world.") + FakeVoice.pcm(for: "Second sentence"))
            let requests = recorder.snapshot.requests
            #expect(requests.map { $0["input"] } == ["Hello world.", "Second sentence"])
            #expect(requests.first?["model"] == "fake")
            #expect(requests.first?["voice"] == "coral")
            #expect(requests.first?["response_format"] == "pcm")
            #expect(requests.first?["speed"] == "1.5")
            #expect(requests.first?["instructions"] == "Cheerful.")
        }
    }

    @Test func aSlowServerWithFramesSplitAcrossChunksPlaysBitExactly() async throws {
        try await withFakeOpenAI { baseURL, _ in
            let sink = ClockedNullSink(clock: ImmediateClock(), keepsSamples: true)
            let controller = StreamingTTSController(provider: provider(baseURL, model: "fake-slow"), sink: sink)
            try await controller.speak("Slow and steady. Wins the race.")
            let expected = (FakeVoice.pcm(for: "Slow and steady.") + FakeVoice.pcm(for: "Wins the race."))
                .withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Float($0) / 32768 }
            #expect(sink.report.samples == expected)
        }
    }

    @Test func anHTTPErrorIsReportedWithTheServersMessage() async throws {
        try await withFakeOpenAI { baseURL, _ in
            await #expect(throws: CloudProviderError.rejected(
                provider: "OpenAI speech", status: 500, message: "The server had an error while processing your request.")) {
                _ = try await collect(provider(baseURL, model: "fake-error").stream(text: textStream(["Hi."])))
            }
        }
    }

    @Test func aWrongKeyIsRefusedWithoutEchoingIt() async throws {
        try await withFakeOpenAI { baseURL, _ in
            let error = await #expect(throws: CloudProviderError.self) {
                _ = try await collect(provider(baseURL, key: "wrong-key").stream(text: textStream(["Hi."])))
            }
            #expect(error == .rejected(provider: "OpenAI speech", status: 401, message: "Incorrect API key provided."))
            #expect(!String(describing: error).contains("wrong-key"))
        }
    }

    @Test func aConnectionDroppedMidBodyIsReported() async throws {
        try await withFakeOpenAI { baseURL, _ in
            let sink = ClockedNullSink(clock: ImmediateClock())
            let controller = StreamingTTSController(provider: provider(baseURL, model: "fake-drop"), sink: sink)
            await #expect(throws: CloudProviderError.connectionClosed(provider: "OpenAI speech")) {
                try await controller.speak("This response will be cut off in the middle.")
            }
            #expect(sink.report.events.last == .stopped)
        }
    }

    @Test func noServerIsAConnectionFailure() async throws {
        let error = await #expect(throws: CloudProviderError.self) {
            // AsyncHTTPClient retries refused connections until the request's deadline.
            _ = try await collect(provider("http://127.0.0.1:1/v1", timeout: 2).stream(text: textStream(["Hi."])))
        }
        guard case .connectionFailed = error else {
            Issue.record("expected a connection failure, got \(String(describing: error))")
            return
        }
    }

    @Test func cancellingStopsTheRequest() async throws {
        try await withFakeOpenAI { baseURL, _ in
            let sink = ClockedNullSink(clock: ImmediateClock())
            let controller = StreamingTTSController(provider: provider(baseURL, model: "fake-slow"), sink: sink)
            try await controller.start()
            controller.yield(text: String(repeating: "A long sentence to keep the server busy for a while. ", count: 3))
            while sink.report.scheduledSamples == 0 { try await Task.sleep(for: .milliseconds(2)) }
            await controller.cancel()
            #expect(sink.report.events.last == .stopped)
        }
    }
}
