import HTTPTypes
import Hummingbird
import NIOCore

/// Reads a request's body so that its connection can still be watched afterwards.
///
/// Hummingbird's `consumeWithCancellationOnInboundClose` learns that a client left by reading past the
/// body's end marker; a body read to its end has already consumed that marker. So a body of known
/// length is read up to its last byte and no further, leaving the marker for the watcher.
enum RequestBodyReader {
    /// The body, at most `limit` bytes, and whether the connection can be watched for the client leaving.
    /// A body that takes longer than `timeout` to arrive is a 408; one that ends before its Content-Length
    /// (or breaks off) is a 400, the client's mistake, not the server's.
    static func read(_ request: Request, limit: Int, within timeout: Duration) async throws -> (body: ByteBuffer, watchable: Bool) {
        let declared = request.headers[.contentLength].map { Int($0) }
        if let declared {
            guard let length = declared, length >= 0 else {
                throw APIError.invalid("The Content-Length header is not a number of bytes.", code: "bad_content_length")
            }
            guard length <= limit else {
                throw APIError(.contentTooLarge, "The request body has \(length) bytes, more than the \(limit) this server accepts; send less.",
                               code: "body_too_large")
            }
        }
        let body = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    // A body of unknown length (chunked) has its end known only by reading the marker.
                    guard case let length?? = declared else { return try await request.body.collect(upTo: limit) }
                    return try await readPrefix(of: request.body, length: length)
                } catch let error where !(error is CancellationError || error is APIError || error is NIOTooManyBytesError) {
                    throw APIError.invalid("The request body broke off before its end (\(error)); send it whole.",
                                           code: "incomplete_body")
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let body = try await group.next() ?? nil else {
                throw APIError(.requestTimeout, "The request body did not arrive within \(timeout); send it at once.",
                               code: "body_timeout")
            }
            return body
        }
        return (body, declared != nil)
    }

    /// The first `length` bytes of `body` and no more, so that its end marker is left for the watcher; a
    /// 400 when it ends before.
    private static func readPrefix(of body: RequestBody, length: Int) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        guard length > 0 else { return collected }
        for try await piece in body {
            collected.writeImmutableBuffer(piece)
            if collected.readableBytes >= length { return collected }
        }
        throw APIError.invalid("The request body ended after \(collected.readableBytes) of the \(length) bytes its Content-Length declares.",
                               code: "incomplete_body")
    }

    /// Runs `operation`, cancelled when the client closes its side of the connection (when `watchable`).
    ///
    /// Before it returns, the watcher has read the end marker `read` left for it. Hummingbird cancels its
    /// watcher once `operation` returns, and a watcher cancelled before it reached the marker drops the
    /// body stream it feeds unfinished, which NIO stops the process for ("Deinited
    /// NIOAsyncSequenceProducer.Source without calling source.finish()"): seen in the in-process test
    /// client (whose request stream ends with nil on cancellation; a socket's throws, and the watcher
    /// then finishes the stream) when a fast response ended before the watcher task had run.
    static func cancellingOnClientExit(_ request: Request, watchable: Bool,
                                       _ operation: () async throws -> Void) async throws {
        guard watchable else { return try await operation() }
        try await request.body.consumeWithCancellationOnInboundClose { rest in
            do {
                try await operation()
            } catch {
                await endMarkerRead(rest)
                throw error
            }
            await endMarkerRead(rest)
        }
    }

    /// Returns once the watcher has passed the body's end marker: `rest`, the body after what `read`
    /// took (nothing), ends there. A cancelled wait returns at once.
    private static func endMarkerRead(_ rest: RequestBody) async {
        do {
            for try await _ in rest {}
        } catch {}
    }
}
