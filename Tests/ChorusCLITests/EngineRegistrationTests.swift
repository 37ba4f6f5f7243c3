@testable import ChorusCLI
import ChorusEngines
import ChorusModels
import ChorusServer
import ChorusSpeech
import ChorusTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// An app's own engine, registered once with `Engine.register`, is offered by every surface that lists
/// engines: `chorus voices`, `chorus models list`, the command line's `--engine`, the server's `/v1/models`
/// and its speech route.
@Suite struct EngineRegistrationTests {
    static let fake = FakeSynthesizer(engineName: "echo", sampleRate: 16_000)

    /// The engine, registered the first time a test asks (a process registers an id once).
    static let registered: Engine = {
        let manifest = ModelManifest(id: "echo", name: "Echo", files: [ModelManifest.File("echo.onnx")],
                                     source: "an app's own model", licence: "MIT", installation: .manual("The app brings it."))
        let engine = Engine(id: "echo", name: "Echo", sampleRate: 16_000, capabilities: [.streaming],
                            models: [ModelCatalog.Entry(name: "echo", manifest: manifest)], modelDescription: "nothing",
                            defaultModel: { URL(fileURLWithPath: "/nonexistent/echo") },
                            installedVoices: { _ in fake.voices }, load: { _ in fake })
        try! Engine.register(engine)
        return engine
    }()

    @Test func aRegisteredEngineIsInVoicesModelsAndTheCommandLine() throws {
        _ = Self.registered
        #expect(Engine.all.map(\.id).contains("echo"))
        let (voices, _) = VoicesCommand.voices(of: Engine.all)
        #expect(voices.contains { $0.engine == "echo" && $0.id == "plain" })
        #expect(ModelCatalog.listed.map(\.name).contains("echo"))
        #expect(try ModelCatalog.manifest(named: "echo").name == "Echo")
        #expect(EngineChoice.allValueStrings.contains("echo"))
        let voicesCommand = try VoicesCommand.parse(["--engine", "echo"])
        #expect(voicesCommand.engine?.id == "echo")
        #expect(EngineOptions.modelHelp.contains("echo: nothing"))
        #expect(throws: EngineError.engineExists("echo")) { try Engine.register(Self.registered) }
    }

    @Test func aRegisteredEngineIsServedAndSpeaks() async throws {
        _ = Self.registered
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil))  // Engine.all
        try await server.makeApplication().test(.router) { client in
            let models = try await client.execute(uri: "/v1/models", method: .get)
            #expect(String(buffer: models.body).contains("\"id\":\"echo\""))
            let spoken = try await client.execute(
                uri: "/v1/audio/speech", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"model": "echo", "input": "Hello there.", "response_format": "pcm"}"#))
            #expect(spoken.status == .ok, "\(String(buffer: spoken.body))")
            // The fake's ramp, 10 ms a character, as OpenAI's pcm: 16-bit samples at 24 kHz.
            #expect(spoken.body.readableBytes == "Hello there.".count * 240 * 2)
        }
    }
}
