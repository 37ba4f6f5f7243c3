import ChorusCloud
@testable import ChorusServer
import ChorusSpeech
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A synthesizer with voices of both genders and the fake's audio.
private struct GenderedSynthesizer: SpeechSynthesizer {
    let engineName = "gendered"
    let sampleRate = 24_000
    let voices = [
        Voice(id: "m_one", engine: "gendered", language: "en-US", gender: .male),
        Voice(id: "f_one", engine: "gendered", language: "en-US", gender: .female),
        Voice(id: "f_two", engine: "gendered", language: "en-US", gender: .female),
    ]

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let samples = FakeSynthesizer.samples(for: request.text), rate = sampleRate
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioChunk(samples: samples, sampleRate: rate))
            continuation.finish()
        }
    }
}

@Suite struct OpenAIVoiceNameTests {
    let voices = GenderedSynthesizer().voices

    @Test func namesMapToListedVoicesElseToVoicesOfTheirGenderInTurn() {
        let map = OpenAIVoiceMap(lists: ["gendered": ["echo": ["missing", "f_two"]]])
        #expect(map.voice(for: "echo", engine: "gendered", voices: voices)?.id == "f_two")
        // Not listed: by gender, the female names taking the female voices in turn.
        #expect(map.voice(for: "alloy", engine: "gendered", voices: voices)?.id == "f_one")
        #expect(map.voice(for: "coral", engine: "gendered", voices: voices)?.id == "f_two")
        #expect(map.voice(for: "Onyx", engine: "gendered", voices: voices)?.id == "m_one")
        // An engine with no voice of the gender: its default voice.
        let plain = [Voice(id: "plain", engine: "fake", language: "en-US", gender: .unknown)]
        #expect(map.voice(for: "nova", engine: "fake", voices: plain)?.id == "plain")
        // Not an OpenAI name, or a name the engine has a voice of its own by: left alone.
        #expect(map.voice(for: "f_one", engine: "gendered", voices: voices) == nil)
        #expect(map.voice(for: "alloy", engine: "x", voices: [Voice(id: "alloy", engine: "x", language: "en", gender: .male)]) == nil)
    }

    @Test func everyOpenAIVoiceIsAnsweredAndTheHeaderSaysWhichVoiceSpoke() async throws {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil),
                                  engines: [served(GenderedSynthesizer())])
        try await server.makeApplication().test(.router) { client in
            for (name, gender) in OpenAIVoiceMap.names {
                let response = try await client.execute(
                    uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                    body: jsonBody(["model": "tts-1", "voice": name, "input": "Hello there.", "response_format": "pcm"]))
                #expect(response.status == .ok, "\(name)")
                let spoke = try #require(response.headers[HTTPField.Name("X-Chorus-Voice")!])
                #expect(GenderedSynthesizer().voices.first { $0.id == spoke }?.gender == gender, "\(name) spoke as \(spoke)")
            }
        }
    }

    @Test func aFileReplacesTheListsItNamesAndABadOneSaysWhatIsWrong() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-voicemap-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.json")
        try Data(#"{"kokoro": {"alloy": "jf_nezumi"}, "gendered": {"onyx": ["f_two"]}}"#.utf8).write(to: good)
        let map = try OpenAIVoiceMap(contentsOf: good)
        #expect(map.lists["kokoro"]?["alloy"] == ["jf_nezumi"])
        #expect(map.lists["kokoro"]?["echo"] == OpenAIVoiceMap.standard.lists["kokoro"]?["echo"])
        #expect(map.voice(for: "onyx", engine: "gendered", voices: voices)?.id == "f_two")

        let bad = folder.appendingPathComponent("bad.json")
        try Data(#"{"kokoro": {"marvin": "jf_alpha"}}"#.utf8).write(to: bad)
        let error = #expect(throws: OpenAIVoiceMapError.self) { try OpenAIVoiceMap(contentsOf: bad) }
        #expect(error?.description.contains("\"marvin\" is not one of OpenAI's voices") == true)
    }
}

@Suite struct FirstAudioMetricsTests {
    /// Buckets 50 ms apart (or closer) up to 2 s, so a first audio within 1 s is told from one at 1.05 s.
    @Test func firstAudioAndRealTimeFactorBucketsResolveFiftyMilliseconds() async throws {
        let firstAudio = ServerMetrics.firstAudioBuckets.filter { $0 <= 2 }
        #expect(firstAudio.first == 0.05 && firstAudio.last == 2)
        #expect(zip(firstAudio, firstAudio.dropFirst()).allSatisfy { $1 - $0 <= 0.05 + 1e-9 })
        let factors = ServerMetrics.realTimeFactorBuckets.filter { $0 <= 1 }
        #expect(factors.first == 0.05 && factors.last == 1)
        #expect(zip(factors, factors.dropFirst()).allSatisfy { $1 - $0 <= 0.05 + 1e-9 })
        try await fakeServer().makeApplication().test(.router) { client in
            _ = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "fake", "input": "Hello there."]))
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(text.contains(#"chorus_time_to_first_audio_seconds_bucket{engine="fake",le="0.05"}"#))
            #expect(text.contains(#"chorus_time_to_first_audio_seconds_bucket{engine="fake",le="0.95"}"#))
            #expect(text.contains(#"chorus_real_time_factor_ratio_bucket{engine="fake",le="0.55"}"#))
        }
    }
}

/// ElevenLabs' `inactivity_timeout` on the stream-input WebSocket, with Chorus's own client.
@Suite struct StreamInputInactivityTests {
    private func live(_ server: SpeechServer, _ body: @Sendable (String) async throws -> Void) async throws {
        try await server.makeApplication().test(.ahc(.http)) { client in
            try await body("ws://127.0.0.1:\(client.port!)")
        }
    }

    private func provider(_ endpoint: String, inactivityTimeout: Int? = nil) -> ElevenLabsProvider {
        ElevenLabsProvider(configuration: ElevenLabsConfiguration(
            apiKey: APIKey("unused"), voiceID: "plain", modelID: "fake", sampleRate: 24_000, endpoint: endpoint,
            inactivityTimeout: inactivityTimeout))
    }

    @Test func aClientThatSendsNothingMoreIsToldAndTheSessionEnds() async throws {
        try await live(fakeServer()) { endpoint in
            // One sentence, then neither more text nor the end: the text stream stays open.
            let (text, input) = AsyncStream<String>.makeStream()
            input.yield("Hello there. ")
            defer { input.finish() }
            var audio = Data()
            let error = await #expect(throws: CloudProviderError.self) {
                for try await piece in provider(endpoint, inactivityTimeout: 1).stream(text: text) { audio.append(piece) }
            }
            #expect(String(describing: error).contains("Have not received new text for 1 seconds"))
            // What was sent before the silence was spoken.
            #expect(audio == pcm16(FakeSynthesizer.samples(for: "Hello there.")))
        }
    }

    @Test func aTimeoutOutsideOneTo180SecondsIsRefused() async throws {
        #expect(try StreamInputRoute.inactivityTimeout(nil) == .seconds(20))
        #expect(try StreamInputRoute.inactivityTimeout("180") == .seconds(180))
        for bad in ["0", "181", "ten", "1.5"] {
            #expect(throws: APIError.self) { try StreamInputRoute.inactivityTimeout(bad) }
        }
    }

    /// A client that reads at the pace it plays, for 90 s of audio, in real time: before, Hummingbird's
    /// 30 s ping waited behind the queued audio, its pong came late, and the server dropped the client.
    /// The fake engine costs nothing, so the test is 90 s of waiting, not of work.
    @Test(.timeLimit(.minutes(5)))
    func aClientReadingAtPlaybackSpeedFor90SecondsGetsEverySample() async throws {
        // 150 characters make a second of the fake's audio at 24 kHz.
        let sentence = String(repeating: "a", count: 148) + ". "
        let sentences = Array(repeating: sentence, count: 90)
        try await live(fakeServer()) { endpoint in
            let text = AsyncStream<String> { continuation in
                for piece in sentences { continuation.yield(piece) }
                continuation.finish()
            }
            let clock = ContinuousClock()
            let start = clock.now
            var received = 0
            var audio = Data()
            for try await piece in provider(endpoint).stream(text: text) {
                audio.append(piece)
                received += piece.count / 2
                // Play it: the next piece is read only when this much audio has played.
                try await clock.sleep(until: start + .seconds(Double(received) / 24_000))
            }
            let expected = sentences.map { pcm16(FakeSynthesizer.samples(for: $0.trimmingCharacters(in: .whitespaces))) }
                .reduce(Data(), +)
            #expect(audio.count == expected.count)
            #expect(audio == expected)
        }
    }
}
