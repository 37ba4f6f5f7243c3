import ChorusFiles
import ChorusModels
import Foundation
import NIOCore

/// The `.incomplete` file a download appends to, written on a `WritingThread` and hashed on a
/// `HashingThread` (a resumed file's bytes first), so the socket, the disk and the hash work side by
/// side. The descriptor closes and both threads stop when the value goes away, so a failed attempt
/// leaks neither.
final class PartialFile: @unchecked Sendable {
    let url: URL
    private var descriptor: Int32
    private let writer: WritingThread
    /// Bytes in the file once the queue is written: the event loop adds to it, the download reads it.
    private let accepted: Locked<Int>

    init(at url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HubError.writing(url.path, errno: errno) }
        let size = Int(lseek(descriptor, 0, SEEK_END))
        var hasher = SHA256Hasher()
        if size > 0 {
            // A resumed file: its bytes enter the hash before the new ones.
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var read = 0
            while read < size, let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {
                let kept = chunk.prefix(size - read)
                hasher.update(kept)
                read += kept.count
            }
        }
        accepted = Locked(size)
        writer = WritingThread(descriptor: descriptor, path: url.path, offset: size, hashing: HashingThread(continuing: hasher))
    }

    /// The file's length once everything appended so far is written.
    var size: Int { accepted.withLock { $0 } }

    /// Empties the file to start the download over.
    func restart() throws {
        try writer.drain()
        guard ftruncate(descriptor, 0) == 0 else { throw HubError.writing(url.path, errno: errno) }
        writer.restart()
        accepted.withLock { $0 = 0 }
    }

    /// Queues `buffer` from an event loop (AsyncHTTPClient's body delegate); the future is its backpressure.
    func append(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        accepted.withLock { $0 += buffer.readableBytes }
        return writer.add(buffer, on: eventLoop)
    }

    /// Queues `data` to be written and hashed, waiting while the writer is far behind.
    func append(_ data: Data) throws {
        try writer.add(ByteBuffer(bytes: data))
        accepted.withLock { $0 += data.count }
    }

    /// Writes what is queued, flushes and closes the file (one `fsync`, at the end); returns the SHA-256 of
    /// everything in it.
    func finish() throws -> String {
        defer { close(descriptor); descriptor = -1 }
        writer.stop(dropping: false)
        do {
            try writer.drain()
        } catch {
            writer.hashing.cancel()
            throw error
        }
        guard fsync(descriptor) == 0 else { writer.hashing.cancel(); throw HubError.writing(url.path, errno: errno) }
        return writer.hashing.finish()
    }

    /// Gives up this attempt: writes what is queued (good bytes, in order, for the next attempt to
    /// resume after), stops both threads and closes the file. Called before another `PartialFile` opens
    /// the same file, since the body delegate may hold this one a little longer.
    func abandon() {
        guard descriptor >= 0 else { return }
        writer.stop(dropping: false)
        writer.hashing.cancel()
        close(descriptor)
        descriptor = -1
    }

    deinit {
        abandon()
    }
}
