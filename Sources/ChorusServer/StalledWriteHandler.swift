import NIOCore

/// Closes a connection whose client has stopped reading: when written data has waited for the socket
/// longer than `timeout` without any write completing, the client is not taking what it asked for.
///
/// Closing makes the response's next write fail, which ends the request and cancels its synthesis,
/// so a client that never reads its audio holds neither a queue place nor the audio made for it for
/// longer than `timeout`. A connection with nothing waiting to be written (a model still working on
/// the first piece, an idle keep-alive) is never closed by it. It passes every part on unchanged.
final class StalledWriteHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private let timeout: TimeAmount
    /// Writes not yet completed, and when the last one completed (or the first of them was made).
    private var pending = 0
    private var lastProgress = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        scheduleCheck(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pending == 0 { lastProgress = .now() }
        pending += 1
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolated().whenComplete { _ in
            self.pending -= 1
            self.lastProgress = .now()
        }
        context.write(data, promise: promise)
    }

    private func scheduleCheck(_ context: ChannelHandlerContext) {
        // Four looks per timeout: a stalled client is closed between 1 and 1.25 timeouts after it stalled.
        let interval = TimeAmount.nanoseconds(max(timeout.nanoseconds / 4, 10_000_000))
        check = context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            if self.pending > 0, NIODeadline.now() - self.lastProgress > self.timeout {
                self.check = nil
                context.close(promise: nil)
                return
            }
            self.scheduleCheck(context)
        }
    }
}
