import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A server child channel that is `inner` with the server's guards around its pipeline: the connection counted
/// in `connections` (and closed at once when its address may hold no more), `FirstHeadDeadlineHandler` next to
/// the socket; after `inner`'s HTTP parser `FirstRequestErrorHandler`, `RequestFramingHandler` and
/// `ConnectionActivityHandler`; and last `WebSocketUpgradeWatcher`, which checks an upgraded connection's frames
/// (at most `frameLimit` bytes).
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let headTimeout: TimeAmount
    let connections: OpenConnections
    let frameLimit: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // Run on the channel's event loop, once it is registered.
        let admission = connections.accept(channel)
        channel.closeFuture.whenComplete { [connections] _ in connections.closed(channel) }
        do {
            try channel.pipeline.syncOperations.addHandler(FirstHeadDeadlineHandler(timeout: headTimeout), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let value = inner.setup(channel: channel, logger: logger)
        // `inner` set its pipeline up synchronously: the parser is in place now. Each handler goes right after
        // it, so the last added is the first to see a request's parts.
        do {
            let parser = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionActivityHandler(connections: connections), position: .after(parser.handler))
            try channel.pipeline.syncOperations.addHandler(RequestFramingHandler(), position: .after(parser.handler))
            try channel.pipeline.syncOperations.addHandler(FirstRequestErrorHandler(), position: .after(parser.handler))
            try channel.pipeline.syncOperations.addHandler(WebSocketUpgradeWatcher(limit: frameLimit))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        if admission == .refused { channel.close(promise: nil) }
        return value
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
