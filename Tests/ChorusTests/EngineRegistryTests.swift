import Chorus
import Foundation
import Testing

@Suite struct EngineRegistryTests {
    static let cosyVoiceModel = ReadmeExampleTests.tests.appendingPathComponent("ChorusCosyVoiceTests/Resources/model")

    @Test func enginesAreFoundByIdWithTheirRatesAndCapabilities() throws {
        // Tests elsewhere in this process register engines of their own after these.
        #expect(Engine.all.prefix(5).map(\.id) == ["kokoro", "piper", "cosyvoice", "neutts", "chatterbox"])
        #expect(try Engine.named("Piper").sampleRate == 22_050)
        #expect([Engine.cosyvoice, .neutts, .chatterbox].allSatisfy { $0.capabilities.contains(.voiceCloning) && $0.cloning != nil })
        #expect(Engine.chatterbox.cloning?.needsTranscript == false && Engine.neutts.cloning?.needsTranscript == true)
        #expect(Engine.cosyvoice.capabilities.contains(.instructions) && !Engine.neutts.capabilities.contains(.instructions))
        #expect(!Engine.kokoro.capabilities.contains(.voiceCloning))
        #expect(Engine.kokoro.capabilities.contains(.languageSelection))
        #expect(Engine.piper.manifest == PiperSynthesizer.manifest)
        #expect(Engine.cosyvoice.manifest.files.contains { $0.names.contains("llm_decoder_fp16.onnx") })
        #expect(throws: EngineError.unknownEngine("nope", known: Engine.all.map(\.id))) { try Engine.named("nope") }
        #expect("\(EngineError.unknownEngine("nope", known: ["kokoro", "piper"]))"
            == "There is no engine called 'nope'; use one of kokoro, piper.")
    }

    /// Chatterbox from the registry on its generated test model: voices read from disk, graphs loaded on first use.
    @Test func chatterboxIsInTheRegistry() async throws {
        let model = ReadmeExampleTests.tests.appendingPathComponent("ChorusChatterboxTests/Resources/model")
        #expect(Engine.chatterbox.sampleRate == 24_000 && Engine.chatterbox.capabilities.contains(.streaming))
        #expect(Engine.chatterbox.manifest == ChatterboxSynthesizer.manifest(.fp32))
        #expect(Engine.chatterbox.models.map(\.name) == ["chatterbox", "chatterbox:fp16", "chatterbox:q8", "chatterbox:q4", "chatterbox:q4f16"])
        #expect(try Engine.named("chatterbox").installedVoices(from: model) == [])
        let engine = try await Engine.chatterbox.load(from: model)
        #expect(engine.engineName == "chatterbox" && engine is ChatterboxSynthesizer)
        await #expect(throws: (any Error).self) { try await Engine.chatterbox.load(from: URL(fileURLWithPath: "/nonexistent-chatterbox")) }
    }

    @Test func askingTooMuchOfAnEngineFailsBeforeAnythingLoads() async throws {
        await #expect(throws: EngineError.languageNotSelectable(engine: "piper", selecting: ["kokoro"])) {
            try await Engine.piper.load(from: URL(fileURLWithPath: "/nonexistent.onnx"), language: "fr")
        }
        await #expect(throws: EngineError.cannotClone(engine: "kokoro", cloning: ["cosyvoice", "neutts", "chatterbox"])) {
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

/// The models `chorus models` takes come from the engines and the shared models, one manifest per model.
@Suite struct ModelCatalogTests {
    @Test func everyEnginesModelsAreListedByNameWithTheSharedOnes() throws {
        let names = ModelCatalog.listed.map(\.name)
        for engine in Engine.all { #expect(engine.models.allSatisfy { names.contains($0.name) }) }
        #expect(names.contains("silero-vad") && names.contains("wetext") && names.contains("fastconformer"))
        #expect(Set(names).count == names.count)
        #expect(try ModelCatalog.manifest(named: "neutts") == NeuTTSSynthesizer.manifest)
        #expect(!NeuTTSSynthesizer.manifest.isDownloadable)  // its backbone is exported by hand
        #expect(try ModelCatalog.manifest(named: "piper:en_US-lessac-medium").id == "piper-en_US-lessac-medium")
        #expect(throws: ModelError.self) { try ModelCatalog.manifest(named: "piper:english") }
        #expect(throws: ModelError.self) { try ModelCatalog.manifest(named: "chatterbox:q9") }
        #expect(throws: ModelError.self) { try ModelCatalog.manifest(named: "nothing") }
    }

    /// Issue 39, item 6: each installed variant (marked complete) follows its engine in `Engine.all(in:)` as an
    /// engine named by the model, reading its folder; a variant not installed, or half pulled, is not there.
    @Test func installedVariantsAreEnginesNamedByTheirModel() throws {
        let store = ModelStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("chorus-registry-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: store.root) }
        for id in ["chatterbox-q4f16", "chatterbox-fp16"] {
            try FileManager.default.createDirectory(at: store.folder(named: id), withIntermediateDirectories: true)
        }
        try Data().write(to: store.folder(named: "chatterbox-q4f16").appendingPathComponent(ModelManifest.completionMarker))
        let ids = Engine.all(in: store).map(\.id)
        #expect(ids == Engine.all(in: ModelStore(root: store.root.appendingPathComponent("none"))).map(\.id).flatMap {
            $0 == "chatterbox" ? ["chatterbox", "chatterbox:q4f16"] : [$0]
        })
        let variant = try #require(Engine.all(in: store).first { $0.id == "chatterbox:q4f16" })
        #expect(variant.name == "Chatterbox Turbo (q4f16)")
        #expect(variant.defaultModel == store.folder(named: "chatterbox-q4f16"))
        #expect(variant.models.map(\.name) == ["chatterbox:q4f16"])
        #expect(variant.capabilities == Engine.chatterbox.capabilities)
    }

    @Test func chatterboxVariantsKeepPlainGraphNamesAndTheirWeightsNames() throws {
        let manifest = try ModelCatalog.manifest(named: "chatterbox:q4f16")
        #expect(manifest.id == "chatterbox-q4f16" && manifest.isDownloadable)
        #expect(manifest.files.first { $0.names == ["language_model.onnx"] }?.remote.first?.displayName
            == "hf:ResembleAI/chatterbox-turbo-ONNX@main/onnx/language_model_q4f16.onnx")
        // The graph names its weights' file by the export's name, so that name is kept (issue 39).
        let model = manifest.files.first { $0.names == ["language_model_q4f16.onnx_data"] }
        #expect(model?.remote == [.huggingFace(repo: "ResembleAI/chatterbox-turbo-ONNX", revision: "main",
                                               path: "onnx/language_model_q4f16.onnx_data")])
        #expect(ChatterboxSynthesizer.manifest(.fp32).files.first?.remote.first?.displayName
            == "hf:ResembleAI/chatterbox-turbo-ONNX@main/onnx/speech_encoder.onnx")
    }
}
