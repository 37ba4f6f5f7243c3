import ChorusFiles
@testable import ChorusServer
import ChorusModels
import ChorusSpeech
import ChorusTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Clients that are slow, stop, or lie about their body, on a server listening on 127.0.0.1: each is
/// answered with a 4xx or closed within its timeout, never held for ever, never a 500.
@Suite struct SlowClientTests {
    /// One second of audio per chunk, every 20 ms, up to `limit` chunks; counts what it made and
    /// whether it was stopped before the end.
    final class FloodSynthesizer: SpeechSynthesizer {
        let engineName = "flood"
        let sampleRate = 24_000
        let voices = [Voice(id: "plain", engine: "flood", language: "en-US", gender: .unknown)]
        let limit: Int
        let state = Locked((made: 0, cancelled: false))

        init(limit: Int) { self.limit = limit }

        func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
            let state = state, limit = limit, rate = sampleRate
            return AsyncThrowingStream { continuation in
                let task = Task {
                    let second = [Float](repeating: 0.25, count: rate)
                    for _ in 0..<limit {
                        do {
                            try await Task.sleep(for: .milliseconds(20))
                        } catch {
                            state.withLock { $0.cancelled = true }
                            continuation.finish(throwing: error)
                            return
                        }
                        state.withLock { $0.made += 1 }
                        continuation.yield(AudioChunk(samples: second, sampleRate: rate))
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    private func live(_ server: SpeechServer, _ body: @Sendable (Int) async throws -> Void) async throws {
        try await server.makeApplication().test(.ahc(.http)) { client in try await body(client.port!) }
    }

    @Test func aClientThatNeverReadsItsAudioIsClosedAndItsSynthesisStopped() async throws {
        let flood = FloodSynthesizer(limit: 500)
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, writeTimeout: .milliseconds(500)), extra: [served(flood)])
        try await live(server) { port in
            // The request is sent and nothing is ever read: 500 s of audio is 24 MB of PCM, more than the
            // socket buffers of both ends hold.
            let connection = try await RawConnection.open(port: port)
            try await connection.send(RawConnection.request("POST", "/v1/audio/speech",
                                                            body: #"{"model":"flood","input":"Go.","response_format":"pcm"}"#))
            try await eventually("the stalled request is stopped", within: 120) { flood.state.withLock { $0.cancelled } }
            try await eventually("its queue place is given back", within: 120) { server.queue.depth(of: "flood") == 0 }
            await connection.close()
        }
        #expect(flood.state.withLock { $0.made } < 500)
    }

    @Test func aConnectionWithHalfARequestHeadIsClosedAfterTheIdleTimeout() async throws {
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, idleTimeout: .milliseconds(300)))
        try await live(server) { port in
            let reply = try await RawConnection.exchange(port: port, "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(reply.text.isEmpty)
            let nothing = try await RawConnection.exchange(port: port, "")
            #expect(nothing.text.isEmpty)
        }
    }

    @Test func aHeadsEndIsFoundAcrossPieces() {
        var matched = 0
        #expect(!FirstHeadDeadlineHandler.completesHead(Array("GET / HTTP/1.1\r\nHost: x\r\n\r".utf8), matched: &matched))
        #expect(FirstHeadDeadlineHandler.completesHead(Array("\n".utf8), matched: &matched))
        matched = 0
        #expect(!FirstHeadDeadlineHandler.completesHead(Array("a\r\r\n\n\r\nb\r\n".utf8), matched: &matched))
        #expect(FirstHeadDeadlineHandler.completesHead(Array("\r\r\n\r\n".utf8), matched: &matched))
    }

    @Test func aBodyThatNeverArrivesIs408() async throws {
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, idleTimeout: .seconds(300), bodyTimeout: .milliseconds(300)))
        try await live(server) { port in
            let head = "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\""
            let reply = try await RawConnection.exchange(port: port, head)
            #expect(reply.status == 408)
            #expect(reply.body.contains("body_timeout"))
        }
    }

    /// Issue 31, item 6: main at 53645ad answered 500. The client half-closes, so the server sees the body end
    /// early and can still answer: nothing read is a failure too, as a test that took silence for a pass could
    /// never fail.
    @Test func aBodyShorterThanItsContentLengthIs400() async throws {
        try await live(fakeServer(ServerConfiguration(port: 0, historyFolder: nil))) { port in
            let head = "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":\"fake\"}"
            let reply = try await RawConnection.exchange(port: port, head, halfClose: true)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.body.contains("incomplete_body"), "\(reply.text)")
            let bad = try await RawConnection.exchange(
                port: port, "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 1e3\r\n\r\n")
            #expect(bad.status == 400, "\(bad.text)")
        }
    }

    @Test func theConnectionLimitLeavesRoomBelowTheDescriptorLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, maximumConnections: Int.max))
        if limit.rlim_cur != rlim_t.max {
            #expect(server.connectionLimit <= Int(limit.rlim_cur) - 64)
        }
        #expect(fakeServer(ServerConfiguration(port: 0, historyFolder: nil, maximumConnections: 3)).connectionLimit == 3)
    }
}

@Suite struct MultipartLimitTests {
    private static func form(parts count: Int) -> Data {
        var body = ""
        for index in 0..<count { body += "--b\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\nx\r\n" }
        return Data((body + "--b--\r\n").utf8)
    }

    @Test func aFormWithMorePartsThanTheLimitIs413() throws {
        let error = #expect(throws: APIError.self) {
            _ = try MultipartForm(contentType: "multipart/form-data; boundary=b", body: Self.form(parts: 17), maximumParts: 16)
        }
        #expect(error?.status == .contentTooLarge)
        #expect(error?.code == "too_many_parts")
        let fine = try MultipartForm(contentType: "multipart/form-data; boundary=b", body: Self.form(parts: 16), maximumParts: 16)
        #expect(fine.parts.count == 16)
        #expect(fine.text("f15") == "x")
    }

    /// 400k tiny parts (19.5 MB, under the upload limit) got no answer in 300 s: each part's search
    /// started over (25k/50k/100k parts took 2.5/8.7/39 s). 10k are parsed whole here, and the bytes the
    /// searches passed over counted; the server itself stops at `maximumFormParts`. The count tells a
    /// quadratic parse at any size: at 10k parts, one that searched from the body's start again passed over
    /// 5.6 GB of the 0.56 MB body and failed after 104 s (debug build); at 100k, a hundred times the work.
    @Test func manyTinyPartsParseInOnePass() throws {
        let body = Self.form(parts: 10_000)
        let form = try MultipartForm(contentType: "multipart/form-data; boundary=b", body: body, maximumParts: 10_000)
        #expect(form.parts.count == 10_000)
        // The parser's own count, not a clock: searching again from the start for each part passes over
        // the body once per part.
        #expect(form.bytesSearched <= body.count, "\(form.bytesSearched) bytes searched in a body of \(body.count)")
    }
}
