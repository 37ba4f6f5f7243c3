import NIOCore
import NIOHTTP1

/// Tells `OpenConnections` when its connection is busy: from the end of a request (the whole request has
/// arrived) until the end of its response, and for good once its first request asks to become a WebSocket.
///
/// It sits right after the HTTP parser, where every request and response of the connection passes as parts,
/// and leaves the pipeline at a WebSocket upgrade, before the parser goes and hands its leftover bytes on.
final class ConnectionActivityHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connections: OpenConnections
    /// Requests that have arrived whole, and responses that have ended (one may end before its request has).
    private var requests = 0
    private var responses = 0
    private var first = true

    init(connections: OpenConnections) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            defer { first = false }
            if first, head.attemptsWebSocketUpgrade {
                connections.setBusy(context.channel, true)
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        case .body:
            break
        case .end:
            requests += 1
            connections.setBusy(context.channel, requests > responses)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responses += 1
            connections.setBusy(context.channel, requests > responses)
        }
        context.write(data, promise: promise)
    }
}

extension HTTPRequestHead {
    /// Whether NIO's upgrade handler takes this head, as a connection's first, to the WebSocket upgrader as far
    /// as asking the route: `websocket` among the `Upgrade` protocols, one `Sec-WebSocket-Key` and version 13.
    /// Such a connection either becomes a WebSocket or is answered 400 and closed; the parser is removed.
    var attemptsWebSocketUpgrade: Bool {
        headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
            && headers[canonicalForm: "sec-websocket-key"].count == 1
            && headers[canonicalForm: "sec-websocket-version"] == ["13"]
    }
}
