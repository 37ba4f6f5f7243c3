import ChorusModels
import ChorusSpeech
@testable import ChorusServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A synthesizer whose every call is a model call that never ends by itself: nothing is made until the call
/// is cancelled, so no audio write can tell the server that its client has gone.
final class HeldSynthesizer: SpeechSynthesizer {
    let engineName = "held"
    let sampleRate = 24_000
    let voices = [Voice(id: "still", engine: "held", language: "en-US", gender: .female)]
    private let state = Locked((started: 0, cancelled: 0))

    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let state = state
        return AsyncThrowingStream { continuation in
            let task = Task {
                state.withLock { $0.started += 1 }
                do {
                    try await Task.sleep(for: .seconds(3_600))
                } catch {
                    state.withLock { $0.cancelled += 1 }
                }
                continuation.finish(throwing: CancellationError())
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

@Suite struct StreamInputLeavingTests {
    /// A WebSocket text frame as a client sends it (masked, here with the zero key, which leaves the bytes as they are).
    static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        return frame + [0, 0, 0, 0] + payload
    }

    /// Issue 31, item 4: a client sends more text than may wait (the session then stops reading its socket until
    /// the engine has spoken enough) and leaves while the engine is in a model call. Before, nothing read the
    /// socket and nothing was written to it while the call ran, so the call went on (a 1 MB message kept Kokoro
    /// busy 12.5 s after its client left, measured on main 06f2c17) and the queue place stayed taken; now the
    /// socket is read on, the leaving is seen, and the call is cancelled.
    @Test func aClientThatLeavesDuringAModelCallCancelsItAndFreesItsPlace() async throws {
        let held = HeldSynthesizer()
        var configuration = ServerConfiguration(port: 0, historyFolder: nil)
        configuration.queueLimit = 1
        let server = fakeServer(configuration, extra: [served(held)])
        try await server.makeApplication().test(.ahc(.http)) { client in
            let connection = try await RawConnection.open(port: client.port!)
            try await connection.send("GET /v1/text-to-speech/still/stream-input?model_id=held HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                      + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                      + "Sec-WebSocket-Version: 13\r\n\r\n")
            let sentences = (0..<8_000).map { "Sentence number \($0) waits its turn." }.joined(separator: " ")
            try await connection.send(bytes: Self.frame(#"{"text":" "}"#) + Self.frame(#"{"text":"\#(sentences) "}"#))
            try await eventually("the first sentence is being spoken") { held.started == 1 }
            #expect(server.queue.depth(of: "held") == 1)
            await connection.close()
            try await eventually("the model call is cancelled", within: 60) { held.cancelled == 1 }
            try await eventually("the queue place is given back", within: 60) { server.queue.depth(of: "held") == 0 }
            #expect(held.started == 1)
        }
    }
}
