import ChorusEngines
import ChorusModels
@testable import ChorusServer
import ChorusSpeech
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A synthesizer with voices in one language and the fake's audio.
private struct OneLanguageSynthesizer: SpeechSynthesizer {
    let engineName: String
    let sampleRate = 24_000
    let voices: [Voice]

    init(_ engine: String, voices: [(String, Voice.Gender)], language: String) {
        engineName = engine
        self.voices = voices.map { Voice(id: $0.0, engine: engine, language: language, gender: $0.1) }
    }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let samples = FakeSynthesizer.samples(for: request.text), rate = sampleRate
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioChunk(samples: samples, sampleRate: rate))
            continuation.finish()
        }
    }
}

/// An engine whose voices declare their language, as Kokoro's and Piper's do.
private func declaring(_ synthesizer: OneLanguageSynthesizer) -> Engine {
    let id = synthesizer.engineName
    let manifest = ModelManifest(id: id, name: id, files: [], source: "the tests", licence: "none",
                                 installation: .manual("It is made by the tests."))
    return Engine(id: id, name: id, sampleRate: synthesizer.sampleRate, capabilities: [.streaming],
                  models: [ModelCatalog.Entry(name: id, manifest: manifest)], modelDescription: "nothing",
                  defaultModel: { URL(fileURLWithPath: "/nonexistent/\(id)") },
                  installedVoices: { _ in synthesizer.voices }, voicesDeclareLanguage: true, load: { _ in synthesizer })
}

/// With no engine named (no model, or one of OpenAI's), the text's language picks the engine and voice;
/// `X-Chorus-Voice` and `X-Chorus-Voice-Reason` say which and why.
@Suite struct VoiceByLanguageTests {
    private static func speak(_ client: some TestClientProtocol, _ fields: [String: Any])
        async throws -> (engine: String?, voice: String?, reason: String?, seconds: Double) {
        var fields = fields
        fields["response_format"] = "pcm"
        let response = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON, body: jsonBody(fields))
        #expect(response.status == .ok, "\(fields): \(String(buffer: response.body))")
        return (response.headers[HTTPField.Name("X-Chorus-Engine")!], response.headers[HTTPField.Name("X-Chorus-Voice")!],
                response.headers[HTTPField.Name("X-Chorus-Voice-Reason")!], Double(response.body.readableBytes) / 48_000)
    }

    @Test func openAIsModelsAndVoicesAreSpokenInTheTextsLanguage() async throws {
        let japanese = declaring(OneLanguageSynthesizer("kana", voices: [("jf_one", .female), ("jm_two", .male)], language: "ja"))
        let english = declaring(OneLanguageSynthesizer("latin", voices: [("en_one", .unknown)], language: "en-US"))
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [japanese, english])
        try await server.makeApplication().test(.router) { client in
            for model in ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"] {
                let spoken = try await Self.speak(client, ["model": model, "voice": "alloy", "input": "Hello there."])
                #expect(spoken.engine == "latin" && spoken.voice == "en_one", "\(model)")
                #expect(spoken.reason == "the text is English (Latin letters) and latin's voice en_one speaks en-US natively; "
                    + "OpenAI's alloy is en_one here (the OpenAI voice map)")
            }
            let unnamed = try await Self.speak(client, ["input": "Hello there."])
            #expect(unnamed.engine == "latin" && unnamed.voice == "en_one")
            // Japanese: OpenAI's male "onyx" is the male voice among the Japanese ones.
            let onyx = try await Self.speak(client, ["model": "tts-1", "voice": "onyx", "input": "こんにちは。"])
            #expect(onyx.engine == "kana" && onyx.voice == "jm_two", "\(onyx.reason ?? "")")
            // An engine or a voice named wins over the language.
            let named = try await Self.speak(client, ["model": "kana", "voice": "alloy", "input": "Hello there."])
            #expect(named.engine == "kana" && named.voice == "jf_one")
            #expect(named.reason == "the request's model is kana; OpenAI's alloy is jf_one here (the OpenAI voice map)")
            let voice = try await Self.speak(client, ["model": "tts-1", "voice": "jm_two", "input": "Hello there."])
            #expect(voice.engine == "kana" && voice.voice == "jm_two" && voice.reason == "the voice jm_two is kana's")
            // No voice speaks Chinese: the default engine, as before, and the reason says so.
            let chinese = try await Self.speak(client, ["model": "tts-1", "input": "今天天气很好。"])
            #expect(chinese.engine == "kana" && chinese.voice == "jf_one")
            #expect(chinese.reason?.contains("no installed voice speaks it natively") == true, "\(chinese.reason ?? "")")
        }
    }

    /// The acceptance request: OpenAI's `tts-1` + `alloy` on English text, with the real models installed
    /// (Kokoro with its Japanese voices only, Piper's English voice), is answered by Piper's English voice.
    @Test(.enabled(if: (try? Engine.piper.installedVoices()) != nil && (try? Engine.kokoro.installedVoices()) != nil,
                   "Piper or Kokoro not installed in $CHORUS_MODELS; run scripts/setup.sh"))
    func tts1AndAlloyOnEnglishTextIsSpokenByPipersEnglishVoice() async throws {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: Engine.all)
        try await server.makeApplication().test(.router) { client in
            let english = try await Self.speak(client, ["model": "tts-1", "voice": "alloy", "input": "Hello there, how are you?"])
            #expect(english.engine == "piper" && english.voice == "en_US-joe-medium", "\(english.reason ?? "")")
            #expect(english.reason?.hasPrefix("the text is English (Latin letters) and piper's voice en_US-joe-medium") == true)
            let japanese = try await Self.speak(client, ["model": "tts-1", "voice": "alloy", "input": "こんにちは。"])
            #expect(japanese.engine == "kokoro" && japanese.voice == "jf_alpha", "\(japanese.reason ?? "")")
            // Read with espeak-ng's Japanese: "konnichiwa" is 1.6 s; its default English spells the kana out
            // in 5.5 s.
            #expect(japanese.seconds > 0.5 && japanese.seconds < 3, "\(japanese.seconds) s")
        }
    }
}
