import NIOCore
import NIOHTTP1

/// Closes a connection that has not sent a whole request head (up to its blank line) within `timeout` of
/// opening.
///
/// Hummingbird's idle timeout lives in a handler the WebSocket-capable pipeline adds only once the first
/// head has been read and found not to be an upgrade, so before that a connection that sends nothing, or
/// half a head, or one byte now and then, was never closed: 400 of them held for 40 s were all still open.
/// This handler sits next to the socket from the start, counts no byte as progress until the head's end
/// (`\r\n\r\n`) has arrived, and then takes itself out: from there Hummingbird's idle timeout, the body
/// deadline (`RequestBodyReader`) and `StalledWriteHandler` take over.
final class FirstHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// How much of `\r\n\r\n` the bytes so far end with.
    private var matched = 0
    private var done = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    /// At shutdown a connection that has not sent a whole head has nothing in flight to finish: it is closed at
    /// once, where it held the server's exit for the whole grace. (After the head, Hummingbird's own handler
    /// closes a connection between requests and lets one in flight finish.)
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !done {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if !done, Self.completesHead(buffer.readableBytesView, matched: &matched) {
            done = true
            deadline?.cancel()
            deadline = nil
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, !done else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    /// Whether `bytes` finish a head's blank line, `matched` being how much of `\r\n\r\n` came before them
    /// (updated for the next piece).
    static func completesHead(_ bytes: some Sequence<UInt8>, matched: inout Int) -> Bool {
        for byte in bytes {
            switch (matched, byte) {
            case (0, UInt8(ascii: "\r")), (2, UInt8(ascii: "\r")): matched += 1
            case (1, UInt8(ascii: "\n")): matched = 2
            case (3, UInt8(ascii: "\n")): return true
            case (_, UInt8(ascii: "\r")): matched = 1
            default: matched = 0
            }
        }
        return false
    }
}

/// Answers a connection's first request that cannot be parsed (a request target that is not a path, a
/// broken header) with 400 and closes it.
///
/// The WebSocket-capable pipeline adds Hummingbird's own answer to a parse error only once it has a first
/// head to look at, so a first request the parser refused left the connection open, unanswered, for ever.
/// This handler sits right after the parser and takes itself out once a first head has come through.
final class FirstRequestErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isHead = if case .head = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if isHead { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest,
                                    headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
