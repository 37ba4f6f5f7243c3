import ChorusEngines
import ChorusFiles
import ChorusModels
@testable import ChorusServer
import ChorusSpeech
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WSClient

/// Who may call what, on a server listening on 127.0.0.1: the key decided on the route the router
/// resolved, whatever the spelling of its path, and no work done for a client before its key is checked.
@Suite struct AccessTests {
    /// A fake engine that counts its loads: a load is work done for the client.
    final class CountedEngine: Sendable {
        let loads = Locked(0)
        var served: Engine {
            let fake = FakeSynthesizer(engineName: "counted", sampleRate: 24_000)
            return testEngine("counted", name: "Counted") { [loads] in
                loads.withLock { $0 += 1 }
                return fake
            }
        }
    }

    private static let key = "k3y-for-tests"

    private func keyedServer(_ counted: CountedEngine, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> SpeechServer {
        var configuration = ServerConfiguration(port: 0, apiKey: BearerKey(Self.key), historyFolder: nil)
        adjust(&configuration)
        // The counted engine first, so OpenAI's model names and an absent model mean it.
        return SpeechServer(configuration: configuration, engines: [counted.served])
    }

    private func live(_ server: SpeechServer, _ body: @Sendable (Int) async throws -> Void) async throws {
        try await server.makeApplication().test(.ahc(.http)) { client in try await body(client.port!) }
    }

    /// Ways to write `path` that a lenient router might take for it: doubled and trailing slashes, dot
    /// segments, percent-encoding, other cases, a query, a parameter.
    static func spellings(of path: String) -> [String] {
        let inner = path.dropFirst()
        var spellings = ["/" + path, "//" + path, path + "/", path + "//", "/." + path, "/./" + inner, path + "/.",
                         path.replacingOccurrences(of: "/", with: "//"), path.replacingOccurrences(of: "/", with: "/./"),
                         "/x/.." + path, path.uppercased(), path.capitalized, path + "?engine=counted", path + ";x",
                         path + "%2F", path + "%20", path.replacingOccurrences(of: "/", with: "%2F"), path + "#x"]
        // Each letter percent-encoded in turn, upper and lower-case hex.
        for (offset, character) in path.enumerated() where character.isLetter {
            let index = path.index(path.startIndex, offsetBy: offset)
            let hex = String(character.asciiValue!, radix: 16)
            spellings.append(path[..<index] + "%" + hex.uppercased() + path[path.index(after: index)...])
            spellings.append(path[..<index] + "%" + hex + path[path.index(after: index)...])
        }
        return spellings
    }

    /// A concrete path for a route pattern (`:id` filled in).
    static func concrete(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: ":id", with: "1")
    }

    /// Whether `reply` is a refusal made before any handler ran: the key's 401, the router's own 404 for a path
    /// it does not route (`unknown_route`), or the parser's bare 400 for a request it cannot read.
    static func refusedBeforeAnyHandler(_ reply: RawConnection.Reply) -> Bool {
        switch reply.status {
        case 401: reply.body.contains("invalid_api_key")
        case 404: reply.body.contains("unknown_route")
        case 400: reply.body.isEmpty
        default: false
        }
    }

    @Test func everyGuardedRouteInEverySpellingIsRefusedWithoutTheKeyAndLoadsNothing() async throws {
        let counted = CountedEngine()
        let server = keyedServer(counted)
        let guarded = server.endpoints().filter(\.needsKey)
        #expect(guarded.count >= 10)
        try await live(server) { port in
            for endpoint in guarded {
                let path = Self.concrete(endpoint.path.description)
                for spelling in Self.spellings(of: path) {
                    let body = endpoint.method == .post || endpoint.method == .delete ? #"{"model":"counted","input":"Hi."}"# : nil
                    let reply = try await RawConnection.exchange(
                        port: port, RawConnection.request(endpoint.method.rawValue, spelling, body: body))
                    // Routed means refused; anything else must be the router's own "no such route" or the parser's
                    // bare 400 for a request too malformed to parse. A handler's own 400 or 404 (a form that is not
                    // multipart, a voice or entry not found, the history off) means the request got past the key.
                    #expect(Self.refusedBeforeAnyHandler(reply),
                            "\(endpoint.method.rawValue) \(spelling) answered \(reply.status.map(String.init) ?? "nothing") without the key: \(reply.body.prefix(120))")
                }
            }
        }
        #expect(counted.loads.withLock { $0 } == 0)
        #expect(server.queue.depth(of: "counted") == 0)
    }

    @Test func theKeyOpensEveryGuardedRouteInEitherHeader() async throws {
        let counted = CountedEngine()
        let server = keyedServer(counted)
        try await live(server) { port in
            for header in ["Authorization: Bearer \(Self.key)", "xi-api-key: \(Self.key)"] {
                let reply = try await RawConnection.exchange(port: port, RawConnection.request("GET", "/v1/models", headers: [header]))
                #expect(reply.status == 200, "\(header.prefix(while: { $0 != ":" }))")
                let doubled = try await RawConnection.exchange(port: port, RawConnection.request("GET", "//v1/models", headers: [header]))
                #expect(doubled.status == 200 || doubled.status == 404)
            }
            let wrong = try await RawConnection.exchange(port: port, RawConnection.request("GET", "/v1/models", headers: ["xi-api-key: nope"]))
            #expect(wrong.status == 401)
            #expect(wrong.body.contains("invalid_api_key"))
        }
    }

    @Test func openRoutesStayOpenAndMetricsCanBePutBehindTheKey() async throws {
        let counted = CountedEngine()
        try await live(keyedServer(counted)) { port in
            for path in ["/health", "/metrics", "/"] {
                let reply = try await RawConnection.exchange(port: port, RawConnection.request("GET", path))
                #expect(reply.status == 200, "\(path)")
            }
            let metrics = try await RawConnection.exchange(port: port, RawConnection.request("GET", "/metrics"))
            #expect(metrics.body.contains("chorus_http_requests_total"))
        }
        try await live(keyedServer(counted) { $0.protectsMetrics = true }) { port in
            for spelling in Self.spellings(of: "/metrics") {
                let reply = try await RawConnection.exchange(port: port, RawConnection.request("GET", spelling))
                #expect(Self.refusedBeforeAnyHandler(reply), "\(spelling): \(reply.status ?? 0) \(reply.body.prefix(120))")
            }
            let keyed = try await RawConnection.exchange(
                port: port, RawConnection.request("GET", "/metrics", headers: ["Authorization: Bearer \(Self.key)"]))
            #expect(keyed.status == 200)
            #expect(try await RawConnection.exchange(port: port, RawConnection.request("GET", "/health")).status == 200)
        }
    }

    @Test func aKnownPathAskedWithAnotherMethodIs405NamingTheMethods() async throws {
        try await fakeServer().makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/v1/audio/speech", method: .get)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == "POST")
            #expect(try ErrorBody(response.body).error.code == "method_not_allowed")
            let voices = try await client.execute(uri: "/v1/audio/voices", method: .put)
            #expect(voices.headers[.allow] == "GET, POST")
            #expect(try await client.execute(uri: "/v1/nothing", method: .get).status == .notFound)
        }
    }

    /// Opens the stream-input socket for the counted engine with `headers`, sends `messages`, and
    /// returns what the server sent until it closed.
    private func streamInput(port: Int, headers: HTTPFields = [:], messages: [String]) async throws -> [String] {
        let received = Locked<[String]>([])
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/v1/text-to-speech/plain/stream-input?model_id=counted",
            configuration: WebSocketClientConfiguration(additionalHeaders: headers), logger: Logger(label: "test")
        ) { inbound, outbound, _ in
            for message in messages { try await outbound.write(.text(message)) }
            for try await message in inbound.messages(maxSize: 1 << 20) {
                if case .text(let text) = message { received.withLock { $0.append(text) } }
            }
        }
        return received.withLock { $0 }
    }

    @Test func aStreamInputSocketWithAWrongKeyIsToldWhyBeforeAnythingIsQueuedOrLoaded() async throws {
        let counted = CountedEngine()
        let server = keyedServer(counted)
        try await live(server) { port in
            let inMessage = try await streamInput(port: port, messages: [#"{"text":" ","xi_api_key":"wrong"}"#, #"{"text":"Hi."}"#])
            #expect(inMessage.count == 1)
            #expect(inMessage.first?.contains("invalid_api_key") == true)
            let inHeader = try await streamInput(port: port, headers: [BearerKey.elevenLabsHeader: "wrong"],
                                                 messages: [#"{"text":" "}"#, #"{"text":"Hi."}"#])
            #expect(inHeader.first?.contains("invalid_api_key") == true)
        }
        #expect(counted.loads.withLock { $0 } == 0)
        #expect(server.queue.depth(of: "counted") == 0)
    }

    @Test func aStreamInputSocketThatSendsNoKeyIsClosedAfterTheIdleTimeoutHavingLoadedNothing() async throws {
        let counted = CountedEngine()
        let server = keyedServer(counted) { $0.idleTimeout = .milliseconds(300) }
        try await live(server) { port in
            let received = try await streamInput(port: port, messages: [])
            #expect(received.first?.contains("invalid_api_key") == true)
        }
        #expect(counted.loads.withLock { $0 } == 0)
    }

    @Test func theRightKeyInTheFirstMessageStillSpeaks() async throws {
        let counted = CountedEngine()
        try await live(keyedServer(counted)) { port in
            let received = try await streamInput(
                port: port, messages: [#"{"text":" ","xi_api_key":"\#(Self.key)"}"#, #"{"text":"Hello there."}"#, #"{"text":""}"#])
            #expect(received.last?.contains(#""isFinal":true"#) == true)
            #expect(received.count >= 2)
        }
        #expect(counted.loads.withLock { $0 } == 1)
    }
}
