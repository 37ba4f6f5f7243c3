import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One GET whose body, once the caller has read the head and chosen to keep it, goes from the event
/// loop straight into a `PartialFile`. It uses AsyncHTTPClient's delegate API because the async
/// `HTTPClientResponse.body` hands over one buffer per task switch and asks the socket for the next
/// only after the consumer took it (its watermarks are 1 and 1), so the socket sat idle while each
/// buffer crossed threads; here the event loop keeps reading while the `WritingThread` catches up,
/// and only the file's bounded queue pushes back.
final class StreamedResponse: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    /// Where the body goes once chosen: the file and the progress callback.
    private struct Target: Sendable {
        let file: PartialFile
        let progress: @Sendable (Int) -> Void
    }

    private let eventLoop: any EventLoop
    private let headPromise: EventLoopPromise<HTTPResponseHead>
    /// Completed once the caller has chosen what to do with the body; body parts past `limit` wait for it.
    private let decided: EventLoopPromise<Void>
    private var task: HTTPClient.Task<Void>?
    // Touched on the event loop only.
    private var chosen = false
    private var target: Target?
    /// Body parts that arrived before the choice: kept, since a connection that drops meanwhile
    /// still delivered them and a resumed download wants every byte it got.
    private var pending: [ByteBuffer] = []
    private var pendingBytes = 0

    /// Sends the GET on `eventLoop` (which the connection and the delegate share, so no buffer hops).
    init(_ request: HTTPClient.Request, client: HTTPClient, on eventLoop: any EventLoop, deadline: NIODeadline) {
        self.eventLoop = eventLoop
        headPromise = eventLoop.makePromise()
        decided = eventLoop.makePromise()
        task = client.execute(request: request, delegate: self, eventLoop: .delegateAndChannel(on: eventLoop), deadline: deadline)
        task?.futureResult.whenFailure { [headPromise] in headPromise.fail($0) }
    }

    /// The response head (the client follows no redirects: the caller does).
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await headPromise.futureResult.get()
        } onCancel: {
            task?.cancel()
        }
    }

    /// Lets the rest of the response go unread into nothing (a redirect's or an error's short body),
    /// so the connection can serve the next request. Every response the caller does not stream into a
    /// file must be discarded, or its body waits for a choice forever; after `body` it does nothing.
    func discard() {
        eventLoop.execute { self.choose(nil) }
    }

    /// Appends the body to `file` (what arrived before this call first), calling `progress` with each
    /// buffer's size, until the response ends.
    func body(into file: PartialFile, progress: @escaping @Sendable (Int) -> Void) async throws {
        let target = Target(file: file, progress: progress)
        try await eventLoop.submit { self.choose(target) }.get()
        guard let task else { return }
        try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }

    /// On the event loop: the first choice wins; the parts that waited for it go to the file or away.
    private func choose(_ choice: Target?) {
        guard !chosen else { return }
        chosen = true
        target = choice
        if let choice {
            for buffer in pending {
                choice.progress(buffer.readableBytes)
                _ = choice.file.append(buffer, on: eventLoop)
            }
        }
        pending = []
        pendingBytes = 0
        decided.succeed(())
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        headPromise.succeed(head)
        return eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard chosen else {
            pending.append(buffer)
            pendingBytes += buffer.readableBytes
            return pendingBytes < WritingThread.limit ? eventLoop.makeSucceededVoidFuture() : decided.futureResult
        }
        guard let target else { return eventLoop.makeSucceededVoidFuture() }
        target.progress(buffer.readableBytes)
        return target.file.append(buffer, on: eventLoop)
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        headPromise.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
