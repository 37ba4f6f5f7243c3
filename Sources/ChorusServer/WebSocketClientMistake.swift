import Foundation
import NIOWebSocket

/// A stream-input client's breach of RFC 6455, as the client is told it: `{"message", "error"}`, then a close
/// with `closeCode`. It is the client's mistake, never reported as `server_error`.
struct WebSocketClientMistake: Error, Equatable {
    /// One sentence: what was wrong and what to do.
    let message: String
    /// The `error` field.
    let code: String
    let closeCode: WebSocketErrorCode

    /// 1009: a message (or a frame) past `limit` bytes.
    static func tooBig(limit: Int) -> Self {
        Self(message: "A message is larger than the \(limit) bytes this server takes; send text in smaller messages.",
             code: "message_too_big", closeCode: .messageTooLarge)
    }

    /// 1002: a frame the client did not mask (§5.1).
    static let unmasked = Self(message: "A client's frames must be masked (RFC 6455, 5.1); this one was not.",
                               code: "unmasked_frame", closeCode: .protocolError)

    /// 1007: a text message that is not UTF-8 (§8.1).
    static let invalidUTF8 = Self(message: "A text message must be UTF-8 (RFC 6455, 8.1); this one was not.",
                                  code: "invalid_utf8", closeCode: .dataInconsistentWithMessage)

    /// 1002: frames out of order or malformed.
    static func protocolError(_ message: String) -> Self {
        Self(message: message, code: "protocol_error", closeCode: .protocolError)
    }

    /// The JSON text message sent before the close.
    var reply: String {
        let object = ["message": message, "error": code]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return #"{"error":"\#(code)"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
