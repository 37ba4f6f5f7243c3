import ChorusFiles
import ChorusModels
import ChorusAudio
@testable import ChorusServer
import ChorusSpeech
import ChorusStreaming
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct SpeechRouteTests {
    private func speak(_ fields: [String: Any], server: SpeechServer = fakeServer(),
                       headers: HTTPFields = speechJSON) async throws -> TestResponse {
        let app = server.makeApplication()
        let body = jsonBody(fields)
        return try await app.test(.router) { client in
            try await client.execute(uri: "/v1/audio/speech", method: .post, headers: headers, body: body)
        }
    }

    @Test func wavIsAHeaderThenTheEnginesSamplesAtItsRate() async throws {
        let response = try await speak(["model": "fake", "input": "Hello there.", "voice": "plain", "response_format": "wav"])
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "audio/wav")
        #expect(response.headers[HTTPField.Name("X-Sample-Rate")!] == "24000")
        let body = Data(buffer: response.body)
        let header = try WAVWriter.header(sampleRate: 24_000, channels: 1, format: .pcm16, dataBytes: Int(UInt32.max))
        #expect(body.prefix(44) == header)
        #expect(body.dropFirst(44) == pcm16(FakeSynthesizer.samples(for: "Hello there.")))
    }

    @Test func pcmIsBareSamplesAt24kHzResampledFromOtherRates() async throws {
        let native = try await speak(["model": "fake", "input": "Hi.", "response_format": "pcm"])
        #expect(native.headers[.contentType] == "audio/pcm")
        #expect(Data(buffer: native.body) == pcm16(FakeSynthesizer.samples(for: "Hi.")))

        let resampled = try await speak(["model": "fake22", "input": "Hi.", "response_format": "pcm"])
        #expect(resampled.headers[HTTPField.Name("X-Sample-Rate")!] == "24000")
        let expected = try Resampler.resample(FakeSynthesizer.samples(for: "Hi."), from: 22_050, to: 24_000)
        #expect(Data(buffer: resampled.body) == pcm16(expected))
    }

    @Test func openAIModelNamesAndNoModelMeanTheFirstEngineAndItsDefaultVoice() async throws {
        for model in ["tts-1", "gpt-4o-mini-tts", nil] as [String?] {
            var fields: [String: Any] = ["input": "Hi.", "response_format": "pcm"]
            fields["model"] = model
            let response = try await speak(fields)
            #expect(response.status == .ok)
            #expect(response.headers[HTTPField.Name("X-Chorus-Engine")!] == "fake")
            #expect(response.headers[HTTPField.Name("X-Chorus-Voice")!] == "plain")
        }
    }

    @Test func sseCarriesTheSameAudioAsBase64DeltasThenDone() async throws {
        let response = try await speak(["model": "fake", "input": "Streamed.", "response_format": "pcm", "stream_format": "sse"])
        #expect(response.headers[.contentType] == "text/event-stream")
        let events = String(buffer: response.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.last == #"data: {"type":"speech.audio.done"}"#)
        var audio = Data()
        for event in events.dropLast() {
            let object = try JSONSerialization.jsonObject(with: Data(event.dropFirst("data: ".count).utf8)) as? [String: String]
            #expect(object?["type"] == "speech.audio.delta")
            audio.append(Data(base64Encoded: object?["audio"] ?? "") ?? Data())
        }
        #expect(audio == pcm16(FakeSynthesizer.samples(for: "Streamed.")))
    }

    @Test(arguments: [
        (["model": "nope", "input": "Hi."], 404, "model", "model_not_found"),
        (["model": "fake", "input": "Hi.", "voice": "nobody"], 400, "voice", "voice_not_found"),
        (["model": "fake", "input": "   "], 400, "input", nil),
        (["model": "fake"], 400, "input", nil),
        (["model": "fake", "input": "Hi.", "speed": 3.0], 400, "speed", nil),
        (["model": "fake", "input": "Hi.", "response_format": "m4a"], 400, "response_format", nil),
        (["model": "fake", "input": "Hi.", "response_format": "ogg"], 400, "response_format", nil),
        (["model": "fake", "input": "Hi.", "stream_format": "websocket"], 400, "stream_format", nil),
        (["model": "fake", "input": 42], 400, "input", nil),
    ] as [([String: any Sendable], Int, String?, String?)])
    func refusalsAreOpenAIStyleErrors(fields: [String: any Sendable], status: Int, param: String?, code: String?) async throws {
        let response = try await speak(fields)
        #expect(response.status.code == status)
        #expect(response.headers[.contentType] == "application/json")
        let error = try ErrorBody(response.body)
        #expect(error.error.param == param)
        #expect(error.error.code == code)
        #expect(error.error.type == "invalid_request_error")
        #expect(error.error.message.hasSuffix("."))
    }

    @Test func unknownVoiceListsTheEnginesVoices() async throws {
        let error = try ErrorBody(try await speak(["model": "fake", "input": "Hi.", "voice": "nobody"]).body)
        #expect(error.error.message == "Unknown voice 'nobody' for fake. Available: plain.")
    }

    @Test func unknownFormatsSayWhichAreServed() async throws {
        let error = try ErrorBody(try await speak(["model": "fake", "input": "Hi.", "response_format": "m4a"]).body)
        #expect(error.error.message == "Unknown response_format 'm4a'; use wav, pcm, mp3, flac, opus or aac.")
    }

    @Test func textAndBodyLimits() async throws {
        let small = fakeServer(ServerConfiguration(port: 0, maximumBodyBytes: 200, maximumTextCharacters: 20))
        let long = try await speak(["model": "fake", "input": String(repeating: "a", count: 21)], server: small)
        #expect(long.status == .badRequest)
        #expect(try ErrorBody(long.body).error.code == "input_too_long")
        #expect(try await speak(["model": "fake", "input": String(repeating: "a", count: 20)], server: small).status == .ok)

        let huge = try await speak(["model": "fake", "input": String(repeating: "a", count: 300)], server: small)
        #expect(huge.status == .contentTooLarge)
        #expect(try ErrorBody(huge.body).error.code == "body_too_large")
    }

    @Test func aBodyThatIsNotJSONIsA400() async throws {
        let app = fakeServer().makeApplication()
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                                    body: ByteBuffer(string: "input=hello"))
            #expect(response.status == .badRequest)
            #expect(try ErrorBody(response.body).error.message.contains("not a JSON object"))
        }
    }

    @Test func anEngineFailureBeforeAnyAudioIsA500WithItsReason() async throws {
        let response = try await speak(["model": "fake", "input": "Fail here."])
        #expect(response.status == .internalServerError)
        let error = try ErrorBody(response.body)
        #expect(error.error.type == "server_error")
        #expect(error.error.message.contains("boom"))
    }

    @Test func aFailureMidStreamEndsTheSSEWithAnErrorEvent() async throws {
        let failing = GatedSynthesizer(engineName: "midway", failsMidway: true)
        failing.open()
        let response = try await speak(["model": "midway", "input": "Half of this.", "response_format": "pcm", "stream_format": "sse"],
                                       server: fakeServer(extra: [served(failing)]))
        #expect(response.status == .ok)
        let events = String(buffer: response.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.count == 2)
        #expect(events.first?.contains("speech.audio.delta") == true)
        #expect(events.last?.hasPrefix(#"data: {"type":"error","error":{"#) == true)
    }

    @Test func unknownRoutesAndMethodsAreJSONErrorsToo() async throws {
        let app = fakeServer().makeApplication()
        try await app.test(.router) { client in
            let missing = try await client.execute(uri: "/v1/audio/nothing", method: .get)
            #expect(missing.status == .notFound)
            #expect(try ErrorBody(missing.body).error.code == "unknown_route")
        }
    }
}

/// A synthesizer whose voices are those on a shared "disk" when it was loaded.
struct ListedVoicesSynthesizer: SpeechSynthesizer {
    let engineName = "listed"
    let sampleRate = 16_000
    let voices: [Voice]

    static func voices(_ ids: [String]) -> [Voice] {
        ids.map { Voice(id: $0, engine: "listed", language: "en", gender: .unknown) }
    }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let samples = FakeSynthesizer.samples(for: request.text), rate = sampleRate
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioChunk(samples: samples, sampleRate: rate))
            continuation.finish()
        }
    }
}

@Suite struct VoiceInstalledLaterTests {
    @Test func aVoiceOnDiskSinceLoadingIsFoundByOneReloadAndAnUnknownOneLoadsNothing() async throws {
        let disk = Locked(["first"])
        let loads = Locked(0)
        let engine = testEngine("listed", name: "Listed", sampleRate: 16_000,
                                installedVoices: { ListedVoicesSynthesizer.voices(disk.withLock { $0 }) }) {
            loads.withLock { $0 += 1 }
            return ListedVoicesSynthesizer(voices: ListedVoicesSynthesizer.voices(disk.withLock { $0 }))
        }
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [engine])
        try await server.makeApplication().test(.router) { client in
            func speak(_ voice: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "listed", "input": "Hi.", "voice": voice, "response_format": "pcm"]))
            }
            #expect(try await speak("first").status == .ok)
            #expect(loads.withLock { $0 } == 1)

            // Another server sharing the model folder installs a voice.
            disk.withLock { $0.append("cloned-elsewhere") }
            let later = try await speak("cloned-elsewhere")
            #expect(later.status == .ok)
            #expect(later.headers[HTTPField.Name("X-Chorus-Voice")!] == "cloned-elsewhere")
            #expect(loads.withLock { $0 } == 2)
            #expect(try await speak("cloned-elsewhere").status == .ok)
            #expect(loads.withLock { $0 } == 2)

            let unknown = try await speak("nowhere")
            #expect(unknown.status == .badRequest)
            #expect(try ErrorBody(unknown.body).error.message == "Unknown voice 'nowhere' for listed. Available: first, cloned-elsewhere.")
            #expect(loads.withLock { $0 } == 2)
        }
    }
}
