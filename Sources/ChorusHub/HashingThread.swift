import Foundation
import NIOCore

/// Hashes the bytes of a download on a thread of its own while the next ones arrive and are written
/// (the `WritingThread` hands them on once written), so the SHA-256 overlaps the network and the disk
/// instead of following each write.
///
/// `add` queues a buffer (a `ByteBuffer` shares its storage, so nothing is copied) and returns at
/// once unless `limit` bytes are already waiting: then it blocks until the thread catches up, which
/// keeps memory bounded when the disk and the network outrun the hash. `finish` waits for the queue to
/// empty and returns the digest; an owner that gives up (a failed attempt, a restart) calls `cancel`.
final class HashingThread: @unchecked Sendable {
    /// Bytes queued before `add` waits: a hundred or so of the buffers a connection delivers.
    static let limit = 8 << 20

    private let condition = NSCondition()
    private var queue: [ByteBuffer] = []
    private var queueStart = 0
    private var queuedBytes = 0
    private var closed = false
    private var done = false
    private var hasher: SHA256Hasher

    /// Starts the thread; its hash continues `hasher` (the bytes a resumed file already had).
    init(continuing hasher: SHA256Hasher = SHA256Hasher()) {
        self.hasher = hasher
        let thread = Thread { [self] in work() }
        thread.name = "chorus.hub.sha256"
        thread.start()
    }

    /// Queues `buffer` to be hashed after the ones before it.
    func add(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        condition.lock()
        while queuedBytes >= Self.limit { condition.wait() }
        queue.append(buffer)
        queuedBytes += buffer.readableBytes
        condition.signal()
        condition.unlock()
    }

    /// Waits for every queued buffer to be hashed; returns the digest as 64 lower-case hex digits.
    func finish() -> String {
        condition.lock()
        closed = true
        condition.broadcast()
        while !done { condition.wait() }
        condition.unlock()
        return hasher.finish()
    }

    /// Stops the thread without a digest (the bytes are being thrown away). The thread holds the
    /// value until it returns, so an owner that drops it unfinished calls this.
    func cancel() {
        condition.lock()
        for buffer in queue[queueStart...] { queuedBytes -= buffer.readableBytes }
        queue.removeAll()
        queueStart = 0
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queueStart == queue.count, !closed { condition.wait() }
            if queueStart == queue.count {
                done = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let buffer = queue[queueStart]
            queue[queueStart] = ByteBuffer() // the storage goes as soon as it is hashed
            queueStart += 1
            if queueStart == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueStart = 0
            } else if queueStart >= 1024 {
                queue.removeFirst(queueStart)
                queueStart = 0
            }
            condition.unlock()
            buffer.withUnsafeReadableBytes { hasher.update($0) }
            condition.lock()
            queuedBytes -= buffer.readableBytes
            condition.broadcast()
            condition.unlock()
        }
    }
}
