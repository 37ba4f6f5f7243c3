import ChorusFiles
import ChorusModels
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf
import NIOCore
import NIOPosix
import ChorusStreaming
import ChorusTesting
@testable import ChorusGoogle
import Testing

let testKey = "test-key-0123456789"
let testToken = "ya29.test-token-abcdef"

/// What the fake server saw and sent.
struct ServerLog: Sendable {
    var requests: [Google_Cloud_Texttospeech_V1_StreamingSynthesizeRequest] = []
    var apiKeys: [String] = []
    var authorizations: [String] = []
    var quotaProjects: [String] = []
    var sentAudioBytes = 0
}

final class Recorder: Sendable {
    private let log = Locked(ServerLog())
    private let stopping = Locked(false)
    func update(_ body: @Sendable (inout ServerLog) -> Void) { log.withLock { body(&$0) } }
    var snapshot: ServerLog { log.withLock { $0 } }

    /// Waits `limit`, or until the server is stopping, when a call the test left waiting ends.
    func stall(upTo limit: Duration) async throws {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: limit)
        while clock.now < end, !stopping.withLock({ $0 }) { try await clock.sleep(for: .milliseconds(20)) }
    }

    func stop() { stopping.withLock { $0 = true } }
}

/// How the fake service behaves once the credentials pass.
enum Behaviour: Sendable {
    /// Each text's audio in pieces of `pieceBytes` (odd sizes cut samples in half).
    case normal(pieceBytes: Int)
    /// Pauses between pieces of audio.
    case slow
    /// Fails with INTERNAL after the first piece of audio.
    case errorMidStream
    /// Sends the first piece of audio, then waits (the test drops the connection under it).
    case stallAfterFirstPiece
    /// Answers nothing and waits for the call to end.
    case silent
    /// Refuses the call with RESOURCE_EXHAUSTED.
    case quotaExhausted
    /// `samples` of `FloodVoice` at `samplesPerSecond`, whatever the text.
    case flood(samples: Int, samplesPerSecond: Double)
}

/// Google's StreamingSynthesize as the fake speaks it: the config must come first, then text inputs;
/// the key must be `testKey` (x-goog-api-key) or the token `testToken` (authorization: Bearer).
struct FakeTextToSpeech: Google_Cloud_Texttospeech_V1_TextToSpeech.StreamingServiceProtocol {
    let behaviour: Behaviour
    let recorder: Recorder

    func streamingSynthesize(
        request: StreamingServerRequest<Google_Cloud_Texttospeech_V1_StreamingSynthesizeRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Cloud_Texttospeech_V1_StreamingSynthesizeResponse> {
        let keys = request.metadata[stringValues: "x-goog-api-key"].map { String($0) }
        let authorizations = request.metadata[stringValues: "authorization"].map { String($0) }
        let projects = request.metadata[stringValues: "x-goog-user-project"].map { String($0) }
        recorder.update {
            $0.apiKeys += keys
            $0.authorizations += authorizations
            $0.quotaProjects += projects
        }
        guard keys == [testKey] || authorizations == ["Bearer \(testToken)"] else {
            // Echoes what it was given, so the test sees the client scrub it.
            throw RPCError(code: .unauthenticated, message: "API key not valid: \(keys.first ?? authorizations.first ?? "none")")
        }
        if case .quotaExhausted = behaviour {
            throw RPCError(code: .resourceExhausted, message: "Quota exceeded for quota metric 'Streaming requests'")
        }
        return StreamingServerResponse { writer in
            var first = true
            var sentAny = false
            for try await message in request.messages {
                recorder.update { $0.requests.append(message) }
                if first {
                    first = false
                    guard case .streamingConfig = message.streamingRequest else {
                        throw RPCError(code: .invalidArgument, message: "the first request must hold streaming_config")
                    }
                    if case .flood(let samples, let rate) = behaviour {
                        try await flood(samples: samples, samplesPerSecond: rate, writer)
                    }
                    continue
                }
                guard case .input(let input) = message.streamingRequest else {
                    throw RPCError(code: .invalidArgument, message: "only the first request may hold streaming_config")
                }
                let pcm = FakeVoice.pcm(for: input.text)
                switch behaviour {
                case .normal(let size):
                    for piece in FakeVoice.pieces(pcm, size: size) { try await write(piece, writer) }
                case .slow:
                    for piece in FakeVoice.pieces(pcm, size: 1_001) {
                        try await Task.sleep(for: .milliseconds(20))
                        try await write(piece, writer)
                    }
                case .errorMidStream:
                    try await write(pcm.prefix(960), writer)
                    throw RPCError(code: .internalError, message: "synthesis failed for key \(testKey)")
                case .stallAfterFirstPiece:
                    if !sentAny { try await write(pcm.prefix(960), writer) }
                    try await recorder.stall(upTo: .seconds(60))
                case .silent:
                    try await recorder.stall(upTo: .seconds(60))
                case .quotaExhausted, .flood:
                    break
                }
                sentAny = true
            }
            return [:]
        }
    }

    private func write(_ audio: Data, _ writer: RPCWriter<Google_Cloud_Texttospeech_V1_StreamingSynthesizeResponse>) async throws {
        try await writer.write(.with { $0.audioContent = audio })
        recorder.update { $0.sentAudioBytes += audio.count }
    }

    /// Sends the flood at its pace, sleeping whenever it is ahead; `write` waits while the client's
    /// flow-control window is used up.
    private func flood(
        samples: Int, samplesPerSecond: Double, _ writer: RPCWriter<Google_Cloud_Texttospeech_V1_StreamingSynthesizeResponse>
    ) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let total = samples * 2
        var offset = 0
        while offset < total {
            let end = min(offset + 8_191, total)
            try await write(FloodVoice.bytes(offset..<end), writer)
            offset = end
            let due = start.advanced(by: .seconds(Double(offset / 2) / samplesPerSecond))
            if due > clock.now { try await clock.sleep(until: due) }
        }
    }
}

/// Runs the fake on 127.0.0.1 for `body`, which gets its endpoint (`http://127.0.0.1:PORT`).
func withFakeGoogle(
    _ behaviour: Behaviour = .normal(pieceBytes: 4_800),
    _ body: @Sendable (_ endpoint: String, _ recorder: Recorder) async throws -> Void
) async throws {
    let recorder = Recorder()
    let server = GRPCServer(
        transport: HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
        services: [FakeTextToSpeech(behaviour: behaviour, recorder: recorder)])
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.serve() }
        let port = try #require(try await server.listeningAddress?.ipv4?.port)
        do {
            try await body("http://127.0.0.1:\(port)", recorder)
        } catch {
            await stopServing(server, recorder, in: &group)
            throw error
        }
        await stopServing(server, recorder, in: &group)
    }
}

/// Stops `server`, which serves in `group`: ends the calls left waiting, then shuts the server down gracefully,
/// falling back to cancelling it after 10 s. Cancelling a server at once traps the process when a connection
/// it has accepted is not yet being served ("Deinited NIOAsyncWriter without calling finish()",
/// apple/swift-nio#3481): it did so in aDroppedConnectionIsAnInterruption, whose client reconnects through the
/// relay as the test ends.
private func stopServing(
    _ server: GRPCServer<HTTP2ServerTransport.Posix>, _ recorder: Recorder, in group: inout ThrowingTaskGroup<Void, any Error>
) async {
    recorder.stop()
    server.beginGracefulShutdown()
    group.addTask { try await Task.sleep(for: .seconds(10)) }
    _ = try? await group.next()
    group.cancelAll()
}

/// A TCP relay on 127.0.0.1 in front of `port` that can cut every connection through it at once,
/// as a network that drops does.
final class DroppingRelay: Sendable {
    /// The connections made so far, both sides of each, and whether the relay is closing.
    private let state = Locked<(channels: [any Channel], closed: Bool)>(([], false))
    private let listener: any Channel
    let port: Int

    init(to port: Int) async throws {
        let state = self.state
        listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop).connect(host: "127.0.0.1", port: port).flatMapThrowing { outbound in
                    // Either side closing closes the other, even when it closed before this ran; a connection
                    // made while the relay closes is closed, so none is left open to the server behind it.
                    inbound.closeFuture.whenComplete { _ in outbound.close(promise: nil) }
                    outbound.closeFuture.whenComplete { _ in inbound.close(promise: nil) }
                    let open = state.withLock { state in
                        if !state.closed { state.channels += [inbound, outbound] }
                        return !state.closed
                    }
                    guard open else {
                        inbound.close(promise: nil)
                        return
                    }
                    try outbound.pipeline.syncOperations.addHandler(Forward(to: inbound))
                    try inbound.pipeline.syncOperations.addHandler(Forward(to: outbound))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.port = try #require(listener.localAddress?.port)
    }

    /// Closes both sides of every connection made so far.
    func drop() {
        for channel in state.withLock({ $0.channels }) { channel.close(promise: nil) }
    }

    func close() async {
        state.withLock { $0.closed = true }
        drop()
        try? await listener.close()
    }

    private final class Forward: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        init(to peer: any Channel) { self.peer = peer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }
    }
}

func textStream(_ pieces: [String]) -> AsyncStream<String> {
    AsyncStream { continuation in
        for piece in pieces { continuation.yield(piece) }
        continuation.finish()
    }
}

func collect(_ stream: AsyncThrowingStream<Data, any Error>) async throws -> Data {
    var data = Data()
    for try await piece in stream { data.append(piece) }
    return data
}
