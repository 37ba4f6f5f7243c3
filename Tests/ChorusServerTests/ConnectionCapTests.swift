@testable import ChorusServer
import ChorusTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 41, item 4: one client holding idle connections denied the server to everyone. On main at 490e177 the
/// server stopped accepting once `maximumConnections` were open, whatever they were doing, so 600 connections
/// that sent nothing, reopened as they were closed, kept `/health` from being reached; and SIGTERM waited out
/// the whole grace for connections that had sent no request.
@Suite struct ConnectionCapTests {
    private func live(_ server: SpeechServer, _ body: @Sendable (Int) async throws -> Void) async throws {
        try await server.makeApplication().test(.ahc(.http)) { client in try await body(client.port!) }
    }

    /// Idle sockets (nothing sent) opened in two batches past a cap of 16, then reopened as the server closes
    /// them, three rounds: the server closes the older batch's first, keeps accepting, and answers `/health`
    /// while the flood is open. A request in flight on the oldest connection is not touched.
    @Test func aFloodOfIdleConnectionsLeavesHealthAnswering() async throws {
        let gated = GatedSynthesizer()
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, idleTimeout: .seconds(300), maximumConnections: 16),
                                extra: [served(gated)])
        try await live(server) { port in
            // Whatever fails, the held request is let go, so the server can stop.
            defer { gated.open() }
            let held = Task {
                try await RawConnection.exchange(port: port, RawConnection.request(
                    "POST", "/v1/audio/speech", body: #"{"model":"gated","input":"Hold on.","response_format":"pcm"}"#))
            }
            try await eventually("the held request starts", within: 120) { gated.started == 1 }
            let older = try (0..<12).map { _ in try IdleSocket(port: port) }
            try await eventually("the server holds the older batch", within: 120) { server.connections.counts.open == 13 }
            let newer = try (0..<12).map { _ in try IdleSocket(port: port) }
            // 25 connections against a cap of 16 less a reserve of 1: at least 10 idle ones must go.
            try await eventually("the server closes idle connections for the new ones", within: 60) {
                older.filter(\.closedByServer).count >= 10
            }
            guard older.filter(\.closedByServer).count >= 10 else { return }
            #expect(newer.allSatisfy { !$0.closedByServer }, "a newer connection was closed while older idle ones were open")
            // The flood goes on: what the server closes is opened again. Each new connection it accepts closes
            // an idle one, so once all are accepted it has closed all but 15 of them (the held request is busy).
            var flood = older + newer
            var opened = flood.count
            for round in 1...3 {
                let closed = flood.indices.filter { flood[$0].closedByServer }
                for index in closed { flood[index] = try IdleSocket(port: port) }
                opened += closed.count
                try await eventually("round \(round): the server accepts the reopened connections", within: 60) {
                    server.connections.counts.closedIdle >= opened - 15
                }
            }
            let health = try await RawConnection.exchange(port: port, RawConnection.request("GET", "/health"), deadline: .seconds(60))
            #expect(health.status == 200, "\(health.text)")
            try await eventually("the flood holds at most 15 connections", within: 60) {
                flood.filter { !$0.closedByServer }.count <= 15
            }
            // What was closed, counted by the server and by the clients.
            #expect(server.connections.counts.closedIdle >= opened - 15, "\(opened) opened")
            #expect(opened > 24, "nothing was closed to reopen")
            gated.open()
            let reply = try await held.value
            #expect(reply.status == 200)
            #expect(gated.finished == 1 && gated.cancelled == 0)
        }
    }

    #if os(Linux)
    /// One client (127.0.0.2) opening eight idle connections, in two batches, against a per-address cap of 4
    /// loses its own four oldest; another client's (127.0.0.1) idle connections stay, and it reaches `/health`. With all of its
    /// connections busy, a client's next one is closed at once.
    @Test func oneAddressHoldsAtMostItsCap() async throws {
        let gated = GatedSynthesizer()
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, idleTimeout: .seconds(300), maximumConnections: 64,
                                                    maximumConnectionsPerAddress: 4), extra: [served(gated)])
        try await live(server) { port in
            defer { gated.open() }
            let other = try (0..<3).map { _ in try IdleSocket(port: port) }
            try await eventually("the other client's connections are held", within: 120) { server.connections.counts.open == 3 }
            let first = try (0..<4).map { _ in try IdleSocket(port: port, from: "127.0.0.2") }
            try await eventually("the flooding address holds its cap", within: 120) { server.connections.counts.open == 7 }
            let second = try (0..<4).map { _ in try IdleSocket(port: port, from: "127.0.0.2") }
            try await eventually("the flooding address loses its four oldest", within: 60) { first.allSatisfy(\.closedByServer) }
            guard first.allSatisfy(\.closedByServer) else { return }
            #expect(second.allSatisfy { !$0.closedByServer })
            #expect(other.allSatisfy { !$0.closedByServer })
            let health = try await RawConnection.exchange(port: port, RawConnection.request("GET", "/health"), deadline: .seconds(60))
            #expect(health.status == 200, "\(health.text)")

            // Four requests in flight from 127.0.0.2 fill its cap with busy connections: a fifth is refused.
            for socket in second {
                await socket.send(RawConnection.request("POST", "/v1/audio/speech",
                                                  body: #"{"model":"gated","input":"Hold on.","response_format":"pcm"}"#))
            }
            try await eventually("four requests run", within: 120) { gated.started == 4 }
            let fifth = try IdleSocket(port: port, from: "127.0.0.2")
            try await eventually("the fifth connection is refused", within: 60) { fifth.closedByServer }
            #expect(server.connections.counts.refused == 1)
            gated.open()
            for socket in second { #expect(await socket.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200")) }
        }
    }
    #endif

    /// A graceful shutdown (SIGTERM's) closes at once the connections that have sent no whole request (nothing,
    /// half a head) and those waiting between requests, while a request in flight still finishes.
    @Test func shutdownClosesIdleConnectionsAtOnceAndLetsRequestsFinish() async throws {
        let gated = GatedSynthesizer()
        let server = fakeServer(ServerConfiguration(host: "127.0.0.1", port: 0, historyFolder: nil, idleTimeout: .seconds(300)),
                                extra: [served(gated)])
        let (ports, portInput) = AsyncStream<Int>.makeStream()
        let group = server.makeServiceGroup(shutdownGrace: .seconds(300), signals: []) { portInput.yield($0) }
        let serving = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        let port = await portIterator.next() ?? 0
        let held = Task {
            try await RawConnection.exchange(port: port, RawConnection.request(
                "POST", "/v1/audio/speech", body: #"{"model":"gated","input":"Finish me.","response_format":"pcm"}"#))
        }
        try await eventually("the request starts", within: 120) { gated.started == 1 }
        var idle = try (0..<3).map { _ in try IdleSocket(port: port) }
        let halfHead = try IdleSocket(port: port)
        await halfHead.send("POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let between = try IdleSocket(port: port)
        await between.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await between.read(until: "}").hasPrefix("HTTP/1.1 200"))
        idle += [halfHead, between]
        try await eventually("the server holds them all", within: 120) { server.connections.counts.open == 6 }

        await group.triggerGracefulShutdown()
        try await eventually("idle connections are closed while a request is in flight", within: 60) {
            idle.allSatisfy(\.closedByServer)
        }
        #expect(gated.finished == 0 && gated.cancelled == 0)
        gated.open()
        let reply = try await held.value
        #expect(reply.status == 200)
        #expect(gated.finished == 1)
        _ = await serving.result
    }
}
