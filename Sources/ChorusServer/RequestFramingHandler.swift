import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Refuses a request whose framing or target RFC 9112 does not let a server trust, before any route sees it,
/// and closes the connection after the answer, since a proxy in front may have read the same bytes as other
/// requests than this server would:
/// - `Transfer-Encoding` other than `chunked` alone: 400 when `chunked` is not the last coding, comes twice, or
///   the request is HTTP/1.0 (§6.1, §6.3); 501 for a coding before a final `chunked`, as this server decodes
///   none (`identity, chunked` was read as chunked, and what followed the last chunk served as a second request);
/// - `Transfer-Encoding` with `Content-Length`: 400 (§6.3 lets a server reject it and requires a close);
/// - an HTTP/1.1 request without `Host`, or any with two or with an invalid one: 400 (§3.2).
///
/// It sits right after the HTTP parser, so it judges every request of the connection, and leaves the pipeline
/// at a WebSocket upgrade before the parser goes. The parser refuses some of these itself (`gzip` alone, say),
/// which ends the same way: a 400 and a close.
final class RequestFramingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var first = true
    /// Set once a request is refused: nothing more is read from the connection.
    private var refused = false
    /// Requests passed on whose responses have not ended: a refusal waits for them (`waiting`), so answers
    /// keep the order of the requests.
    private var unanswered = 0
    private var waiting: APIError?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            defer { first = false }
            if let problem = Self.problem(with: head) {
                refused = true
                if unanswered > 0 { waiting = problem } else { answer(problem, context: context) }
                return
            }
            unanswered += 1
            if first, head.attemptsWebSocketUpgrade {
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        unanswered -= 1
        context.write(data, promise: promise)
        if unanswered == 0, let problem = waiting {
            waiting = nil
            answer(problem, context: context)
        }
    }

    private func answer(_ problem: APIError, context: ChannelHandlerContext) {
        let body = problem.body
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: Int(problem.status.code)),
                                    headers: ["Content-Type": "application/json", "Content-Length": String(body.count), "Connection": "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// What is wrong with `head`'s framing or `Host`, if anything.
    static func problem(with head: HTTPRequestHead) -> APIError? {
        let hosts = head.headers["host"]
        if hosts.count > 1 {
            return .invalid("A request names its host once; this one has \(hosts.count) Host headers.", code: "invalid_host")
        }
        if hosts.isEmpty, (head.version.major, head.version.minor) >= (1, 1) {
            return .invalid("An HTTP/1.1 request needs a Host header naming the server it is for.", code: "invalid_host")
        }
        if let host = hosts.first, !isHost(host) {
            return .invalid("Host \(host.debugDescription) is not a host name or address with an optional port.", code: "invalid_host")
        }
        guard head.headers.contains(name: "transfer-encoding") else { return nil }
        let codings = head.headers[canonicalForm: "transfer-encoding"]
            .map { $0.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        let named = codings.joined(separator: ", ")
        if (head.version.major, head.version.minor) < (1, 1) {
            return .invalid("Transfer-Encoding is HTTP/1.1's; an HTTP/1.0 request gives its body's length in Content-Length.",
                            code: "invalid_transfer_encoding")
        }
        if codings.last != "chunked" || codings.dropLast().contains("chunked") {
            return .invalid("Transfer-Encoding \(named.isEmpty ? "with no coding" : named) does not end the body: send chunked last and once, "
                            + "or Content-Length alone.", code: "invalid_transfer_encoding")
        }
        if codings.count > 1 {
            return APIError(.notImplemented, "This server decodes no transfer coding but chunked, not \(named): send the body with "
                            + "Content-Length or chunked alone.", code: "unsupported_transfer_encoding")
        }
        if head.headers.contains(name: "content-length") {
            return .invalid("A request gives its body's length in Content-Length or Transfer-Encoding, not both.",
                            code: "invalid_transfer_encoding")
        }
        return nil
    }

    /// Whether `value` is a `Host` value (RFC 9110 §7.2): a registered name, an IPv4 address or a bracketed IP
    /// literal, each with an optional port. An empty value is allowed, for a target with no authority.
    static func isHost(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        var name = bytes[...]
        var port: ArraySlice<UInt8> = []
        if name.first == UInt8(ascii: "[") {
            guard let close = name.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = name[(name.startIndex + 1)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ":") }) else { return false }
            let rest = name[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { return false }
                port = rest.dropFirst()
            }
            name = []
        } else if let colon = name.lastIndex(of: UInt8(ascii: ":")) {
            port = name[(colon + 1)...]
            name = name[..<colon]
        }
        return name.allSatisfy(isNameByte) && port.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// RFC 3986's unreserved, sub-delims and `%` (of a percent-encoding).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~!$&'()*+,;=%".utf8).contains(byte)
        }
    }
}
