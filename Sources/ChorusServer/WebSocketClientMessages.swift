import HummingbirdWebSocket
import NIOCore

/// A WebSocket client's messages, put together from its data frames, each at most `limit` bytes and a text
/// message valid UTF-8, or a `WebSocketClientMistake` thrown (1009, 1007, 1002) for the session to tell the
/// client. WSCore's own assembly threw an error of its package for these, which the session could only report
/// as `server_error`.
struct WebSocketClientMessages {
    private var frames: WebSocketInboundStream.AsyncIterator
    let limit: Int

    init(_ inbound: WebSocketInboundStream, limit: Int) {
        frames = inbound.makeAsyncIterator()
        self.limit = limit
    }

    /// The next message; nil when the client has closed.
    mutating func next() async throws -> WebSocketMessage? {
        guard let first = try await frames.next() else { return nil }
        guard first.opcode != .continuation else {
            throw WebSocketClientMistake.protocolError("A continuation frame came with no message to continue (RFC 6455, 5.4).")
        }
        var data = first.data
        var finished = first.fin
        guard data.readableBytes <= limit else { throw WebSocketClientMistake.tooBig(limit: limit) }
        while !finished {
            guard var frame = try await frames.next() else { return nil }
            guard frame.opcode == .continuation else {
                throw WebSocketClientMistake.protocolError("A message began before the one before it ended (RFC 6455, 5.4).")
            }
            guard data.readableBytes + frame.data.readableBytes <= limit else { throw WebSocketClientMistake.tooBig(limit: limit) }
            data.writeBuffer(&frame.data)
            finished = frame.fin
        }
        guard first.opcode == .text else { return .binary(data) }
        guard Self.isUTF8(data.readableBytesView) else { throw WebSocketClientMistake.invalidUTF8 }
        return .text(String(buffer: data))
    }

    static func isUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        // `transcode` says whether it met an encoding error.
        !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true, into: { _ in })
    }
}
