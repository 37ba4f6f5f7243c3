import Chorus
import Foundation
import Testing

@Suite struct EngineRegistryTests {
    static let cosyVoiceModel = ReadmeExampleTests.tests.appendingPathComponent("ChorusCosyVoiceTests/Resources/model")

    @Test func enginesAreFoundByIdWithTheirRatesAndCapabilities() throws {
        #expect(Engine.all.map(\.id) == ["kokoro", "piper", "cosyvoice", "neutts", "chatterbox"])
        #expect(try Engine.named("Piper").sampleRate == 22_050)
        #expect(Engine.cosyvoice.capabilities.contains(.voiceCloning))
        #expect(!Engine.kokoro.capabilities.contains(.voiceCloning))
        #expect(Engine.kokoro.capabilities.contains(.languageSelection))
        #expect(Engine.piper.manifest == PiperSynthesizer.manifest)
        #expect(Engine.cosyvoice.manifest.files.contains { $0.names.contains("llm_decoder_fp16.onnx") })
        #expect(throws: EngineError.unknownEngine("nope", known: ["kokoro", "piper", "cosyvoice", "neutts", "chatterbox"])) { try Engine.named("nope") }
        #expect("\(EngineError.unknownEngine("nope", known: ["kokoro", "piper"]))"
            == "There is no engine called 'nope'; use one of kokoro, piper.")
    }

    /// Chatterbox from the registry on its generated test model: voices read from disk, graphs loaded on first use.
    @Test func chatterboxIsInTheRegistry() async throws {
        let model = ReadmeExampleTests.tests.appendingPathComponent("ChorusChatterboxTests/Resources/model")
        #expect(Engine.chatterbox.sampleRate == 24_000 && Engine.chatterbox.capabilities.contains(.streaming))
        #expect(Engine.chatterbox.manifest == ModelManifest.chatterbox(.fp32))
        #expect(try Engine.named("chatterbox").installedVoices(from: model) == [])
        let engine = try await Engine.chatterbox.load(from: model)
        #expect(engine.engineName == "chatterbox" && engine is ChatterboxSynthesizer)
        await #expect(throws: (any Error).self) { try await Engine.chatterbox.load(from: URL(fileURLWithPath: "/nonexistent-chatterbox")) }
    }

    @Test func askingTooMuchOfAnEngineFailsBeforeAnythingLoads() async throws {
        await #expect(throws: EngineError.languageNotSelectable(engine: "piper")) {
            try await Engine.piper.load(from: URL(fileURLWithPath: "/nonexistent.onnx"), language: "fr")
        }
        await #expect(throws: EngineError.cannotClone(engine: "kokoro", cloning: ["cosyvoice"])) {
            try await Engine.kokoro.loadCloning(from: URL(fileURLWithPath: "/nonexistent"))
        }
    }

    @Test func aLoadedEngineMatchesItsEntry() async throws {
        let engine = try await Engine.cosyvoice.loadCloning(from: Self.cosyVoiceModel)
        #expect(engine.engineName == Engine.cosyvoice.id)
        #expect(engine.sampleRate == Engine.cosyvoice.sampleRate)
    }

    @Test func aMissingModelIsNamed() async throws {
        let folder = URL(fileURLWithPath: "/nonexistent-chorus-models/kokoro")
        do {
            _ = try await Engine.kokoro.load(from: folder)
            Issue.record("loading a missing model succeeded")
        } catch {
            #expect("\(error)".contains("/nonexistent-chorus-models/kokoro/"))
        }
    }
}
