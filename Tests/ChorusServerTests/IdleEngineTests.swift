@testable import ChorusServer
import ChorusEngines
import ChorusFiles
import ChorusSpeech
import ChorusTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 40, item 4: an engine no request used for the idle time is unloaded (its models freed once the last
/// request holding it ends), a busy one is kept, the next request loads it again, and /health and /metrics say
/// which engines are loaded (main at a0d8beb never unloaded an engine).
@Suite struct IdleEngineTests {
    static func counted(_ loads: Locked<Int>) -> Engine {
        testEngine("counted", sampleRate: 16_000) {
            loads.withLock { $0 += 1 }
            return FakeSynthesizer(engineName: "counted")
        }
    }

    static func speak(_ client: some TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                 body: jsonBody(["model": "counted", "input": "Hi.", "response_format": "pcm"]))
    }

    @Test func anIdleEngineIsUnloadedABusyOneKeptAndTheNextRequestLoadsItAgain() async throws {
        let loads = Locked(0)
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [Self.counted(loads)])
        try await server.makeApplication().test(.router) { client in
            #expect(try await Self.speak(client).status == .ok)
            #expect(loads.withLock { $0 } == 1)
            // Used within the idle time: kept.
            #expect(await server.engines.unloadIdle(before: .now - .seconds(60), busy: { _ in false }).isEmpty)
            // Busy past it: kept, and counted as used now.
            #expect(await server.engines.unloadIdle(before: .now + .seconds(1), busy: { _ in true }).isEmpty)
            #expect(await server.engines.loadedIDs == ["counted"])
            #expect(await server.engines.unloadIdle(before: .now + .seconds(1), busy: { _ in false }) == ["counted"])
            #expect(await server.engines.loadedIDs.isEmpty)

            let health = String(buffer: try await client.execute(uri: "/health", method: .get).body)
            #expect(health.contains("\"loaded\":false"), "\(health)")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("chorus_engine_loaded{engine=\"counted\"} 0"), "\(metrics)")
            #expect(metrics.contains("chorus_resident_memory_bytes "), "\(metrics)")

            #expect(try await Self.speak(client).status == .ok)
            #expect(loads.withLock { $0 } == 2)
            let loaded = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(loaded.contains("chorus_engine_loaded{engine=\"counted\"} 1"), "\(loaded)")
        }
    }

    /// The unloader the server runs (`ServerConfiguration.engineIdleUnload`) does it by itself.
    @Test func theServersUnloaderUnloadsAnEngineLeftIdle() async throws {
        let loads = Locked(0)
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [Self.counted(loads)])
        let unloader = IdleEngineUnloader(engines: server.engines, queue: server.queue, idle: .milliseconds(200), logger: server.logger)
        let running = Task { try await unloader.run() }
        defer { running.cancel() }
        try await server.makeApplication().test(.router) { client in
            #expect(try await Self.speak(client).status == .ok)
            #expect(loads.withLock { $0 } == 1)
            var waited = 0
            while !(await server.engines.loadedIDs.isEmpty), waited < 200 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(await server.engines.loadedIDs.isEmpty, "still loaded after 10 s with an idle time of 0.2 s")
        }
    }
}
