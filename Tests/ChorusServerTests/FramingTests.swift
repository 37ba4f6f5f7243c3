@testable import ChorusServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 41, item 7: HTTP framing to RFC 9112 and the stream-input socket to RFC 6455. On main at 490e177
/// `Transfer-Encoding: identity, chunked` was read as chunked, so what followed the last chunk was served as a
/// second request; HTTP/1.1 requests without `Host` or with two were answered 200; the socket took unmasked
/// frames, did not close on invalid UTF-8, and reported a client's oversized message as `server_error`.
@Suite struct FramingTests {
    private func live(_ body: @Sendable (Int) async throws -> Void) async throws {
        // A long idle timeout: a connection the server leaves open is seen as a test that times out, not as a close.
        let server = fakeServer(ServerConfiguration(port: 0, historyFolder: nil, idleTimeout: .seconds(300)))
        try await server.makeApplication().test(.ahc(.http)) { client in try await body(client.port!) }
    }

    /// Sends `text` and reads until the server closes (60 s at most): the replies, split at each status line
    /// (`HTTP/1.x NNN `; a message may itself name HTTP/1.1).
    private func replies(_ port: Int, _ text: String) async throws -> [RawConnection.Reply] {
        let reply = try await RawConnection.exchange(port: port, text, deadline: .seconds(60))
        let bytes = Array(reply.text.utf8)
        let starts = bytes.indices.filter { Self.isStatusLine(bytes[$0...]) }
        return starts.indices.map { index in
            let end = index + 1 < starts.count ? starts[index + 1] : bytes.count
            return RawConnection.Reply(text: String(decoding: bytes[starts[index]..<end], as: UTF8.self))
        }
    }

    /// Whether `bytes` begin with `HTTP/1.0 ` or `HTTP/1.1 ` and a three-digit status and a space.
    private static func isStatusLine(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "H") else { return false }
        let start = Array(bytes.prefix(13))
        guard start.count == 13, start[..<7].elementsEqual("HTTP/1.".utf8), start[7] == UInt8(ascii: "0") || start[7] == UInt8(ascii: "1"),
              start[8] == UInt8(ascii: " "), start[12] == UInt8(ascii: " ") else { return false }
        return start[9...11].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    @Test(arguments: [
        ("identity, chunked", 501), ("gzip, chunked", 501), ("gzip", 400), ("chunked, chunked", 400),
        ("chunked, gzip", 400), ("", 400),
    ])
    func aTransferCodingOtherThanChunkedAloneIsRefusedAndTheConnectionClosed(coding: String, status: Int) async throws {
        try await live { port in
            // What follows the last chunk is a second request to a reader that takes the framing as chunked.
            let smuggled = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let text = "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: \(coding)\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + smuggled
            let answers = try await replies(port, text)
            #expect(answers.map(\.status) == [status], "\(answers.map(\.text))")
            #expect(answers.first?.text.lowercased().contains("connection: close") == true)
        }
    }

    @Test func contentLengthWithTransferEncodingOrTransferEncodingInHTTP10IsRefused() async throws {
        try await live { port in
            let both = try await replies(port, "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 7\r\n"
                                               + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(both.map(\.status) == [400], "\(both.map(\.text))")
            let old = try await replies(port, "POST /v1/audio/speech HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
            #expect(old.map(\.status) == [400], "\(old.map(\.text))")
        }
    }

    @Test func chunkedAloneIsRead() async throws {
        try await live { port in
            let body = #"{"model":"fake","input":"Hello.","response_format":"pcm"}"#
            let text = "POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n\(String(body.utf8.count, radix: 16))\r\n\(body)\r\n0\r\n\r\n"
            let answers = try await replies(port, text)
            #expect(answers.map(\.status) == [200], "\(answers.map(\.text))")
        }
    }

    @Test(arguments: [
        ("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
        ("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 400),
        ("GET /health HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n", 400),
        ("GET /health HTTP/1.1\r\nHost: x/y\r\nConnection: close\r\n\r\n", 400),
        ("GET /health HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET /health HTTP/1.0\r\nConnection: close\r\n\r\n", 200),
        ("GET /health HTTP/1.1\r\nHost: [::1]:8880\r\nConnection: close\r\n\r\n", 200),
        ("GET /health HTTP/1.1\r\nHost: speech.example:80\r\nConnection: close\r\n\r\n", 200),
    ])
    func anHTTP11RequestNamesItsHostOnce(request: String, status: Int) async throws {
        try await live { port in
            let answers = try await replies(port, request)
            #expect(answers.map(\.status) == [status], "\(answers.map(\.text))")
        }
    }

    /// A request refused behind another on one connection is answered after that one's response, in order.
    @Test func aRefusalWaitsForTheResponseBeforeIt() async throws {
        try await live { port in
            let answers = try await replies(port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\n\r\n")
            #expect(answers.map(\.status) == [200, 400], "\(answers.map(\.text))")
        }
    }

    // MARK: The stream-input socket

    private static let upgrade = "GET /v1/text-to-speech/plain/stream-input?model_id=fake HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

    /// A client frame: masked unless told otherwise; `length` overrides the length the header states.
    private static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, length: Int? = nil) -> [UInt8] {
        let count = length ?? payload.count
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if count < 126 {
            bytes.append(maskBit | UInt8(count))
        } else if count < 1 << 16 {
            bytes += [maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// The server's frames after its 101: (opcode, payload), up to where it closed the connection.
    private static func serverFrames(_ bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        guard let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") else { return [] }
        var index = String(decoding: bytes, as: UTF8.self)[..<end.upperBound].utf8.count
        var frames: [(UInt8, [UInt8])] = []
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            index += 2
            if length == 126, index + 2 <= bytes.count {
                length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
                index += 2
            } else if length == 127, index + 8 <= bytes.count {
                length = bytes[index..<index + 8].reduce(0) { $0 << 8 | Int($1) }
                index += 8
            }
            guard index + length <= bytes.count else { break }
            frames.append((opcode, Array(bytes[index..<index + length])))
            index += length
        }
        return frames
    }

    /// Upgrades, sends `frames` and reads to the close: the text the server sent and its close code.
    private func streamInput(_ port: Int, _ frames: [UInt8]) async throws -> (text: String, closeCode: Int?) {
        let socket = try IdleSocket(port: port)
        await socket.send(bytes: Array(Self.upgrade.utf8) + frames)
        let received = Self.serverFrames(await socket.readUntilClosed(seconds: 60))
        let text = received.filter { $0.opcode == 0x1 }.map { String(decoding: $0.payload, as: UTF8.self) }.joined()
        let close = received.first { $0.opcode == 0x8 }.flatMap { $0.payload.count >= 2 ? Int($0.payload[0]) << 8 | Int($0.payload[1]) : nil }
        return (text, close)
    }

    @Test func anUnmaskedClientFrameClosesTheSocketWith1002() async throws {
        try await live { port in
            let (text, code) = try await streamInput(port, Self.frame(0x1, Array(#"{"text":" "}"#.utf8), masked: false))
            #expect(code == 1002)
            #expect(text.contains("unmasked_frame"), "\(text)")
        }
    }

    @Test func invalidUTF8InATextMessageClosesTheSocketWith1007() async throws {
        try await live { port in
            let (text, code) = try await streamInput(port, Self.frame(0x1, Array(#"{"text":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)))
            #expect(code == 1007)
            #expect(text.contains("invalid_utf8"), "\(text)")
        }
    }

    /// Past the 1 MiB limit, in fragments or in one frame's header: 1009 and a client's mistake, not `server_error`.
    @Test func anOversizedMessageClosesTheSocketWith1009() async throws {
        try await live { port in
            let half = [UInt8](repeating: UInt8(ascii: "a"), count: 600_000)
            let fragmented = Self.frame(0x1, half, fin: false) + Self.frame(0x0, half)
            let (text, code) = try await streamInput(port, fragmented)
            #expect(code == 1009)
            #expect(text.contains("message_too_big") && !text.contains("server_error"), "\(text)")

            let (oneText, oneCode) = try await streamInput(port, Self.frame(0x1, Array("aaaa".utf8), length: 2 << 20))
            #expect(oneCode == 1009)
            #expect(oneText.contains("message_too_big") && !oneText.contains("server_error"), "\(oneText)")
        }
    }
}
