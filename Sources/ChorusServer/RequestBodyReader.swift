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
    static func read(_ request: Request, limit: Int) async throws -> (body: ByteBuffer, watchable: Bool) {
        guard let declared = request.headers[.contentLength], let length = Int(declared) else {
            // Chunked upload: its end is only known by reading the marker.
            return (try await request.body.collect(upTo: limit), false)
        }
        guard length <= limit else {
            throw APIError(.contentTooLarge, "The request body has \(length) bytes, more than the \(limit) this server accepts; send less.",
                           code: "body_too_large")
        }
        var body = ByteBuffer()
        if length > 0 {
            for try await piece in request.body {
                body.writeImmutableBuffer(piece)
                if body.readableBytes >= length { break }
            }
        }
        return (body, true)
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
