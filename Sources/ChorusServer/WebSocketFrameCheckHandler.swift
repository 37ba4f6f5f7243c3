import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Holds a WebSocket client to RFC 6455 frame by frame, ahead of the session: a frame the client did not mask
/// (§5.1) fails the connection with close 1002, and a frame past `limit` bytes, which the frame decoder refuses
/// from its header without reading it, with 1009; each is told to the client first as `{"message", "error"}`
/// (`WebSocketClientMistake`). An unmasked frame was taken as any other, and an oversized one reached the
/// session as an error it reported as `server_error`.
final class WebSocketFrameCheckHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let limit: Int
    private var failed = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        guard unwrapInboundIn(data).maskKey != nil else {
            fail(.unmasked, context: context)
            return
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? NIOWebSocketError else {
            context.fireErrorCaught(error)
            return
        }
        guard !failed else { return }
        fail(error == .invalidFrameLength ? .tooBig(limit: limit)
                 : .protocolError("A control frame must be whole and at most 125 bytes (RFC 6455, 5.5); this one was not."),
             context: context)
    }

    private func fail(_ mistake: WebSocketClientMistake, context: ChannelHandlerContext) {
        failed = true
        var code = context.channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: mistake.closeCode)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: mistake.reply))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Puts a `WebSocketFrameCheckHandler` right after the WebSocket frame decoder when the connection upgrades, before
/// the bytes the client sent behind its upgrade request reach the decoder, and then takes itself out; a connection
/// that does not upgrade takes it out at its first request.
///
/// It is added last when the connection opens, after NIO's upgrade handler, which tells the handlers after it
/// that the upgrade is complete once the decoder is in place and before it replays what it held back.
final class WebSocketUpgradeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade {
            do {
                let decoder = try context.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try context.pipeline.syncOperations.addHandler(WebSocketFrameCheckHandler(limit: limit), position: .after(decoder.handler))
            } catch {
                context.fireErrorCaught(error)
                context.close(promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
