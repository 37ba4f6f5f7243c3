import AsyncHTTPClient
@testable import ChorusServer
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct QueueAndStreamingTests {
    @Test func aFullQueueAnswers429WithRetryAfterAndFreesItsPlaceWhenDone() async throws {
        let gated = GatedSynthesizer()
        let server = fakeServer(ServerConfiguration(port: 0, queueLimit: 1), extra: [served(gated)])
        try await server.makeApplication().test(.router) { client in
            let held = Task {
                try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody(["model": "gated", "input": "Wait for it."]))
            }
            try await eventually("the first request starts") { gated.started == 1 }
            let refused = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                                   body: jsonBody(["model": "gated", "input": "Me too."]))
            #expect(refused.status == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            let error = try ErrorBody(refused.body)
            #expect(error.error.code == "queue_full")
            #expect(error.error.type == "rate_limit_error")
            // Another engine has its own queue.
            let other = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                                 body: jsonBody(["model": "fake", "input": "Elsewhere."]))
            #expect(other.status == .ok)

            gated.open()
            #expect(try await held.value.status == .ok)
            try await eventually("the place is given back") { server.queue.depth(of: "gated") == 0 }
            let after = try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                                 body: jsonBody(["model": "gated", "input": "Now."]))
            #expect(after.status == .ok)
        }
    }

    /// Runs `body` with a live server on 127.0.0.1 and its base URL.
    private func live(_ server: SpeechServer, _ body: @Sendable (String) async throws -> Void) async throws {
        // `.ahc`, not `.live`: `.live` also connects an unused client at once, with a 5 s timeout a loaded machine can exceed.
        try await server.makeApplication().test(.ahc(.http)) { client in
            try await body("http://127.0.0.1:\(client.port!)")
        }
    }

    private func speechRequest(_ base: String, _ fields: [String: Any]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: base + "/v1/audio/speech")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(jsonBody(fields))
        return request
    }

    /// The request's deadline is for a hang, not a pace: at 30 s it ran out in the fresh-clone CI of ca78432,
    /// 879 tests sharing 2 cores.
    @Test func audioArrivesChunkedBeforeTheWholeIsMade() async throws {
        let gated = GatedSynthesizer()
        try await live(fakeServer(extra: [served(gated)])) { base in
            let response = try await HTTPClient.shared.execute(
                speechRequest(base, ["model": "gated", "input": "First half, then the rest.", "response_format": "pcm"]),
                timeout: .seconds(120))
            #expect(response.status == .ok)
            #expect(response.headers["Transfer-Encoding"].first == "chunked")
            let all = pcm16(FakeSynthesizer.samples(for: "First half, then the rest."))
            var received = Data()
            var iterator = response.body.makeAsyncIterator()
            // The engine holds its second half until the first has reached the client.
            while received.count < all.count / 2, let piece = try await iterator.next() {
                received.append(contentsOf: piece.readableBytesView)
            }
            #expect(received == all.prefix(all.count / 2))
            #expect(gated.finished == 0)
            gated.open()
            while let piece = try await iterator.next() { received.append(contentsOf: piece.readableBytesView) }
            #expect(received == all)
        }
    }

    @Test func aClientThatLeavesCancelsItsSynthesis() async throws {
        let gated = GatedSynthesizer()
        let server = fakeServer(extra: [served(gated)])
        try await live(server) { base in
            let request = speechRequest(base, ["model": "gated", "input": "Nobody will hear the end of this."])
            let client = Task {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()
                // Hang up while the engine is still making the rest.
                withUnsafeCurrentTask { $0?.cancel() }
                _ = try await iterator.next()
            }
            _ = await client.result
            try await eventually("the engine sees the cancellation") { gated.cancelled == 1 }
            #expect(gated.finished == 0)
            gated.open()  // were it not cancelled, let the server shut down after the failure
            try await eventually("the queue place is given back") { server.queue.depth(of: "gated") == 0 }
        }
    }
}
