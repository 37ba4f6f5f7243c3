import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWebSocket
import ChorusStreaming
import ChorusTesting
import Testing

let testKey = "test-key-0123456789"

/// What a fake server saw.
struct ServerLog: Sendable {
    /// Bytes of audio the server has written to its socket so far (before any base64).
    var sentAudioBytes = 0
    var paths: [String] = []
    var messages: [String] = []
    var requests: [[String: String]] = []
}

final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var log = ServerLog()
    func update(_ body: (inout ServerLog) -> Void) { lock.withLock { body(&log) } }
    var snapshot: ServerLog { lock.withLock { log } }
}

/// A long answer sent at a fixed pace: `samples` of `FloodVoice`, paced at `samplesPerSecond`.
struct Flood: Sendable, Equatable {
    var samples: Int
    var samplesPerSecond: Double
    /// Bytes per write (a multiple of 2 keeps nothing about frames: the client re-aligns anyway).
    var pieceBytes = 8_191

    /// Writes the flood with `write`, sleeping whenever it is ahead of its pace.
    func send(_ recorder: Recorder, _ write: (Data) async throws -> Void) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var offset = 0
        let total = samples * 2
        while offset < total {
            let end = min(offset + pieceBytes, total)
            try await write(FloodVoice.bytes(offset..<end))
            recorder.update { $0.sentAudioBytes += end - offset }
            offset = end
            let due = start.advanced(by: .seconds(Double(offset / 2) / samplesPerSecond))
            if due > clock.now { try await clock.sleep(until: due) }
        }
    }
}

/// How a fake service behaves.
enum Behaviour: Sendable, Equatable {
    case normal
    /// Pauses between pieces of audio.
    case slow
    /// Reports an error after the first piece of audio.
    case errorMidStream
    /// Ends the connection after the first piece of audio, without saying the audio is complete.
    case dropMidStream
    /// Answers the first text with a flood of audio.
    case flood(Flood)
}

/// A local stand-in for ElevenLabs' stream-input WebSocket on 127.0.0.1.
///
/// It sends no pings. Hummingbird's server pings every 30 s by default and closes a connection whose pong
/// has not come by the next ping, while a client held back by backpressure reads a ping (and answers it)
/// only after the frames queued before it: when that queue takes longer than the ping period to play, as
/// the flood's can on a loaded machine, the server hangs up and the test fails with "The connection to
/// ElevenLabs closed before the audio was complete" (as every run did with pings every 300 ms).
func withFakeElevenLabs(
    _ behaviour: Behaviour = .normal, _ body: @Sendable (_ endpoint: String, _ recorder: Recorder) async throws -> Void
) async throws {
    let recorder = Recorder()
    let app = Application(
        router: Router(),
        server: .http1WebSocketUpgrade(configuration: .init(ws: .init(autoPing: .disabled))) { head, _, _ in
            recorder.update { $0.paths.append(head.path ?? "") }
            guard head.headerFields[HTTPField.Name("xi-api-key")!] == testKey,
                  head.path?.hasPrefix("/v1/text-to-speech/voice-1/stream-input") == true else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                var audioMessages = 0
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let json) = message else { continue }
                    recorder.update { $0.messages.append(json) }
                    let fields = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
                    let text = fields?["text"] as? String ?? ""
                    if text.isEmpty {
                        try await outbound.write(.text(#"{"audio":null,"isFinal":true,"normalizedAlignment":null}"#))
                        return
                    }
                    if text == " " { continue }
                    if case .flood(let flood) = behaviour {
                        try await flood.send(recorder) { piece in
                            try await outbound.write(.text(#"{"audio":"\#(piece.base64EncodedString())","isFinal":false}"#))
                        }
                        continue
                    }
                    for piece in FakeVoice.pieces(FakeVoice.pcm(for: text), size: 1_001) {
                        if audioMessages == 1 && behaviour == .errorMidStream {
                            try await outbound.write(.text(#"{"message":"Quota exceeded for key \#(testKey)","error":"quota_exceeded","code":1008}"#))
                            return
                        }
                        if audioMessages == 1 && behaviour == .dropMidStream { return }
                        try await outbound.write(.text(#"{"audio":"\#(piece.base64EncodedString())","isFinal":false}"#))
                        audioMessages += 1
                        if behaviour == .slow { try await Task.sleep(for: .milliseconds(3)) }
                    }
                }
            }
        },
        configuration: .init(address: .hostname("127.0.0.1", port: 0))
    )
    // `.ahc`, not `.live`: `.live` also connects an unused client at once, with a 5 s timeout a loaded machine can exceed.
    try await app.test(.ahc(.http)) { client in
        try await body("ws://127.0.0.1:\(client.port!)", recorder)
    }
}

/// Thrown by the fake HTTP server to abort a response in the middle of its body.
struct AbortResponse: Error {}

/// A local stand-in for `POST /v1/audio/speech` on 127.0.0.1. The model name picks the behaviour:
/// "fake-slow", "fake-error" (HTTP 500), "fake-drop" (the connection dies mid-body), "fake-flood" (answers
/// with `flood`, whatever the text); anything else is normal.
func withFakeOpenAI(
    flood: Flood? = nil, _ body: @Sendable (_ baseURL: String, _ recorder: Recorder) async throws -> Void
) async throws {
    let recorder = Recorder()
    let router = Router()
    router.post("/v1/audio/speech") { request, _ -> Response in
        guard request.headers[.authorization] == "Bearer \(testKey)" else {
            return Response(
                status: .unauthorized, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}}"#)))
        }
        let bytes = try await request.body.collect(upTo: 1 << 20)
        let fields = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] ?? [:]
        let request = fields.mapValues { "\($0)" }
        recorder.update { $0.requests.append(request) }
        let model = request["model"] ?? ""
        if model == "fake-error" {
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"error":{"message":"The server had an error while processing your request."}}"#)))
        }
        if model == "fake-flood", let flood {
            return Response(status: .ok, headers: [.contentType: "audio/pcm"], body: ResponseBody { writer in
                try await flood.send(recorder) { try await writer.write(ByteBuffer(bytes: $0)) }
                try await writer.finish(nil)
            })
        }
        let pcm = FakeVoice.pcm(for: request["input"] ?? "")
        return Response(status: .ok, headers: [.contentType: "audio/pcm"], body: ResponseBody { writer in
            for (index, piece) in FakeVoice.pieces(pcm, size: 333).enumerated() {
                if model == "fake-drop" && index == 2 { throw AbortResponse() }
                try await writer.write(ByteBuffer(bytes: piece))
                if model == "fake-slow" { try await Task.sleep(for: .milliseconds(2)) }
            }
            try await writer.finish(nil)
        })
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    // `.ahc`, not `.live`: `.live` also connects an unused client at once, with a 5 s timeout a loaded machine can exceed.
    try await app.test(.ahc(.http)) { client in
        try await body("http://127.0.0.1:\(client.port!)/v1", recorder)
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
