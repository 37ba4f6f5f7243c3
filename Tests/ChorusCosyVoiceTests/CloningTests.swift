import ChorusAudio
@testable import ChorusCosyVoice
import ChorusSpeech
import Foundation
import Testing

/// `VoiceCloning` on the generated models: a clip becomes a voice in memory, `register` installs it
/// in the running engine (listed and usable by id, no reload), `removeVoice` takes it away.
@Suite struct CloningTests {
    static let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusVADTests/Resources/speech_pauses_16k.wav")

    static func engine(voices: URL) throws -> CosyVoiceSynthesizer {
        try CosyVoiceSynthesizer(models: ModelFolder(url: TestResources.models), voicesFolder: voices)
    }

    @Test func aRegisteredCloneIsListedAndSpokenByIdWithoutReloadingAndCanBeRemoved() async throws {
        let voices = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-clone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: voices) }
        let engine = try Self.engine(voices: voices)
        #expect(engine.voices.isEmpty)
        let (samples, rate) = try WAVFile.readMono(contentsOf: Self.clip)
        let clone = try await engine.cloneVoice(from: VoiceClip(samples: samples, sampleRate: rate, transcript: "Some words."),
                                                id: "mine", language: "en")
        #expect(clone.voice.engine == "cosyvoice")
        let inMemory = try await engine.synthesize(SynthesisRequest(text: "你好。", voice: .cloned(clone)))

        try await engine.register(clone)
        #expect(engine.voices.map(\.id) == ["mine"])
        #expect(engine.voices.first?.language == "en")
        let byID = try await engine.synthesize(SynthesisRequest(text: "你好。", voice: "mine"))
        // The same prompt and the same seeds: the installed voice speaks exactly as the clone did.
        #expect(byID == inMemory)
        // A second engine over the folder finds it on disk.
        #expect(try Self.engine(voices: voices).voices.map(\.id) == ["mine"])
        await #expect(throws: SpeechError.voiceExists("mine", engine: "cosyvoice")) { try await engine.register(clone) }

        try await engine.removeVoice(id: "mine")
        #expect(engine.voices.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: voices.appendingPathComponent("mine").path))
        await #expect(throws: SpeechError.self) { try await engine.removeVoice(id: "mine") }
    }

    /// `chorus voice add` loads only the cloner (its two encoders, not the LLM, flow and vocoder): the voice it
    /// makes and writes is the one the whole engine would make, and it removes what it wrote.
    @Test func theClonerAloneMakesTheVoiceTheEngineWouldMake() async throws {
        let voices = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-cloner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: voices) }
        let (samples, rate) = try WAVFile.readMono(contentsOf: Self.clip)
        let clip = VoiceClip(samples: samples, sampleRate: rate, transcript: "Some words.")
        let cloner = CosyVoiceCloner(modelFolder: TestResources.models, voicesFolder: voices)
        try await cloner.register(try await cloner.cloneVoice(from: clip, id: "mine", language: "en"))

        let engine = try Self.engine(voices: voices)
        #expect(engine.voices.map(\.id) == ["mine"])
        let byCloner = try await engine.synthesize(SynthesisRequest(text: "你好。", voice: "mine"))
        let byEngine = try await engine.synthesize(SynthesisRequest(
            text: "你好。", voice: .cloned(try await engine.cloneVoice(from: clip, id: "mine", language: "en"))))
        #expect(byCloner == byEngine)

        try await cloner.removeVoice(id: "mine")
        #expect(VoiceCatalog.entries(in: voices).isEmpty)
        await #expect(throws: SpeechError.unknownVoice("mine", engine: "cosyvoice", available: [])) {
            try await cloner.removeVoice(id: "mine")
        }
    }

    @Test func aCloneNeedsTheClipsTranscript() async throws {
        let engine = try Self.engine(voices: FileManager.default.temporaryDirectory.appendingPathComponent("none"))
        #expect(engine.cloningNeedsTranscript)
        await #expect(throws: CosyVoiceError.emptyTranscript) {
            try await engine.cloneVoice(from: VoiceClip(samples: [Float](repeating: 0.1, count: 48_000), sampleRate: 16_000,
                                                        transcript: "  "),
                                        id: "x", language: nil)
        }
    }

    @Test func anotherEnginesCloneIsRefused() async throws {
        let engine = try Self.engine(voices: FileManager.default.temporaryDirectory.appendingPathComponent("none"))
        let foreign = ClonedVoice(voice: Voice(id: "x", engine: "other", language: "en", gender: .unknown), conditioning: 1)
        await #expect(throws: SpeechError.clonedVoiceOfAnotherEngine(voice: "x", madeBy: "other", engine: "cosyvoice")) {
            try await engine.register(foreign)
        }
    }
}
