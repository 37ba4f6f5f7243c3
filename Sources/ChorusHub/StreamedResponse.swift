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

    /// Where the body goes once chosen: the file, the bytes it may still take, and the progress callback.
    private struct Target: Sendable {
        let file: PartialFile
        let room: Int
        let limit: Int
        let url: String
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
    /// Bytes given to the chosen file so far.
    private var written = 0
    /// Set when the body passed what the file may take.
    private var refusal: HubError?

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
    /// buffer's size, until the response ends; throws `HubError.tooLarge` (and stops the transfer) as
    /// soon as the body would pass `room` bytes (what is left of the file's `limit`).
    func body(into file: PartialFile, room: Int, limit: Int, url: String, progress: @escaping @Sendable (Int) -> Void) async throws {
        let target = Target(file: file, room: room, limit: limit, url: url, progress: progress)
        try await eventLoop.submit { self.choose(target) }.get()
        if let task {
            try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        }
        // A body that had arrived whole before it was chosen ends well and may still be too large.
        if let refusal = try await eventLoop.submit({ self.refusal }).get() { throw refusal }
    }

    /// On the event loop: the first choice wins; the parts that waited for it go to the file or away.
    private func choose(_ choice: Target?) {
        guard !chosen else { return }
        chosen = true
        target = choice
        if let choice {
            for buffer in pending where take(buffer, into: choice) {
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
        guard let target, take(buffer, into: target) else { return eventLoop.makeSucceededVoidFuture() }
        return target.file.append(buffer, on: eventLoop)
    }

    /// On the event loop: whether `buffer` fits in what the target may still take; when it does not,
    /// the transfer fails with `HubError.tooLarge` and nothing more is written.
    private func take(_ buffer: ByteBuffer, into target: Target) -> Bool {
        guard written + buffer.readableBytes <= target.room else {
            if refusal == nil {
                let error = HubError.tooLarge(url: target.url, limit: target.limit)
                refusal = error
                task?.fail(reason: error)
            }
            return false
        }
        written += buffer.readableBytes
        target.progress(buffer.readableBytes)
        return true
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        headPromise.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
