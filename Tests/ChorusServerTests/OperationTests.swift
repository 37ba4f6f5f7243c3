import AsyncHTTPClient
@testable import ChorusServer
import ChorusStreaming
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle
import UnixSignals
import HummingbirdTesting
import Testing

@Suite struct OperationTests {
    @Test func metricsCountRequestsErrorsQueueAndFirstAudio() async throws {
        try await fakeServer().makeApplication().test(.router) { client in
            _ = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "fake", "input": "Hello there."]))
            _ = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "fake", "input": "Hi.", "voice": "nobody"]))
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: response.body)
            #expect(text.contains(#"chorus_http_requests_total{route="/v1/audio/speech",method="POST",status="200"} 1"#))
            #expect(text.contains(#"chorus_http_errors_total{route="/v1/audio/speech",method="POST",status="400"} 1"#))
            #expect(text.contains(#"chorus_time_to_first_audio_seconds_count{engine="fake"} 1"#))
            #expect(text.contains(#"chorus_real_time_factor_ratio_count{engine="fake"} 1"#))
            #expect(text.contains(#"chorus_queue_depth_requests{engine="fake22"} 0"#))
        }
    }

    @Test func metricsAreScrapedWithoutTheKeyUnlessTheyAreProtected() async throws {
        try await fakeServer(ServerConfiguration(port: 0, apiKey: BearerKey("k"))).makeApplication().test(.router) { client in
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
        }
        let protected = ServerConfiguration(port: 0, apiKey: BearerKey("k"), protectsMetrics: true)
        try await fakeServer(protected).makeApplication().test(.router) { client in
            let without = try await client.execute(uri: "/metrics", method: .get)
            #expect(without.status == .unauthorized)
            let with = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer k"])
            #expect(with.status == .ok)
        }
    }

    /// Starts the server's service group on 127.0.0.1, sends one held request, and shuts down while it runs.
    private func shutDownDuringARequest(grace: Duration, openGateAfterShutdown: Bool) async throws -> (GatedSynthesizer, Result<Data, any Error>) {
        let gated = GatedSynthesizer()
        let server = fakeServer(ServerConfiguration(host: "127.0.0.1", port: 0), extra: [served(gated)])
        let (ports, portInput) = AsyncStream<Int>.makeStream()
        let group = server.makeServiceGroup(shutdownGrace: grace, signals: []) { portInput.yield($0) }
        let serving = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        let port = await portIterator.next() ?? 0
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/audio/speech")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(jsonBody(["model": "gated", "input": "Finish me.", "response_format": "pcm"]))
        let response = Task {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
            var data = Data()
            for try await piece in response.body { data.append(contentsOf: piece.readableBytesView) }
            return data
        }
        try await eventually("the request starts") { gated.started == 1 }
        await group.triggerGracefulShutdown()
        try await Task.sleep(for: .milliseconds(50))
        if openGateAfterShutdown { gated.open() }
        let result = await response.result
        gated.open()
        _ = await serving.result
        return (gated, result)
    }

    @Test(.serialized, arguments: [true, false])
    func shutdownFinishesRequestsInFlightOrCancelsThemAfterTheGrace(finishes: Bool) async throws {
        let (gated, result) = try await shutDownDuringARequest(grace: finishes ? .seconds(300) : .milliseconds(10),
                                                               openGateAfterShutdown: finishes)
        if finishes {
            #expect(try result.get() == pcm16(FakeSynthesizer.samples(for: "Finish me.")))
            #expect(gated.cancelled == 0)
        } else {
            #expect(gated.cancelled == 1)
            #expect(gated.finished == 0)
        }
    }
}
