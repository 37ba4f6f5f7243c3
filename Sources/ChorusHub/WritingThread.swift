import Foundation
import NIOCore

/// Writes a download's bytes to its file on a thread of its own and hands them on to a `HashingThread`,
/// so the event loop that reads the socket never waits for the disk: reading, writing and hashing overlap.
///
/// `add` queues a buffer (a `ByteBuffer` shares its storage, so nothing is copied); the thread writes
/// everything queued at once with one `writev`, so a batch of the small buffers a connection delivers
/// costs one system call. Past `limit` bytes queued, the event loop's `add` hands back a future that
/// completes once the thread has caught up (AsyncHTTPClient stops reading the socket until then), and
/// the blocking `add` waits: memory stays bounded when the network outruns the disk. On Linux the thread
/// also starts the kernel's writeback of every few MiB written (`sync_file_range`), so the disk works
/// during the download and the `fsync` before the rename has little left to do. A write error is kept,
/// fails the next `add` and is thrown by `drain`; the owner then gives up the attempt.
final class WritingThread: @unchecked Sendable {
    /// Bytes queued before `add` pushes back: some sixty of the 64 KiB buffers a connection delivers.
    /// Held buffers cannot go back to NIO's pool of receive buffers, so a longer queue only makes the
    /// event loop allocate (and fault in) new ones: 16 MiB was not faster than 4 in a side-by-side series.
    static let limit = 4 << 20
    /// Bytes written between two starts of the kernel's writeback.
    static let writebackStep = 8 << 20
    /// Buffers per `writev`: IOV_MAX on Linux and macOS (the headers' macro does not reach Swift).
    static let vectorLimit = 1024

    private let descriptor: Int32
    private let path: String
    private let condition = NSCondition()
    private var queue: [ByteBuffer] = []
    private var queuedBytes = 0
    private var writing = false
    private var waiter: EventLoopPromise<Void>?
    private var failure: HubError?
    private var stopping = false
    private var stopped = false
    /// The file's length as written, and how much of it the kernel was asked to write back.
    private var offset: Int
    private var writebackStart: Int
    /// Touched by the thread only while it writes, and by the owner only while the queue is idle.
    private(set) var hashing: HashingThread

    /// Starts the thread appending to `descriptor` (open for writing at `offset`, its end); the
    /// written bytes go on to `hashing`. `path` names the file in errors.
    init(descriptor: Int32, path: String, offset: Int, hashing: HashingThread) {
        self.descriptor = descriptor
        self.path = path
        self.offset = offset
        self.writebackStart = offset
        self.hashing = hashing
        let thread = Thread { [self] in work() }
        thread.name = "chorus.hub.write"
        thread.start()
    }

    /// Queues `buffer` from an event loop: a succeeded future while fewer than `limit` bytes wait, else
    /// one that completes when the thread has caught up; a failed one after a write error.
    func add(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        condition.lock()
        defer { condition.unlock() }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        if stopping { return eventLoop.makeFailedFuture(HubError.failed(what: "Writing \(path)", reason: "the download was given up")) }
        enqueue(buffer)
        guard queuedBytes >= Self.limit else { return eventLoop.makeSucceededVoidFuture() }
        if let waiter { return waiter.futureResult }
        let promise = eventLoop.makePromise(of: Void.self)
        waiter = promise
        return promise.futureResult
    }

    /// Queues `buffer` from a thread that may block: waits while `limit` bytes are queued.
    func add(_ buffer: ByteBuffer) throws {
        condition.lock()
        defer { condition.unlock() }
        while queuedBytes >= Self.limit, failure == nil { condition.wait() }
        if let failure { throw failure }
        enqueue(buffer)
    }

    private func enqueue(_ buffer: ByteBuffer) {
        guard buffer.readableBytes > 0 else { return }
        queue.append(buffer)
        queuedBytes += buffer.readableBytes
        condition.signal()
    }

    /// Waits until every queued buffer is written; throws the write error if there was one.
    func drain() throws {
        condition.lock()
        defer { condition.unlock() }
        while (!queue.isEmpty || writing), failure == nil { condition.wait() }
        if let failure { throw failure }
    }

    /// After `drain`, with the file emptied by its owner: the next bytes start at 0 and a new hash.
    func restart() {
        condition.lock()
        defer { condition.unlock() }
        hashing.cancel()
        hashing = HashingThread()
        offset = 0
        writebackStart = 0
    }

    /// Stops the thread once the queue is written (`dropping` the queue instead when the bytes are being
    /// given up) and waits for it. The descriptor stays open: it is the owner's.
    func stop(dropping: Bool) {
        condition.lock()
        if dropping {
            queue.removeAll()
            queuedBytes = 0
        }
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        let waiting = waiter
        waiter = nil
        condition.unlock()
        waiting?.fail(failure ?? HubError.failed(what: "Writing \(path)", reason: "the download was given up"))
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if queue.isEmpty {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            writing = true
            let failed = failure != nil
            condition.unlock()

            var problem: HubError?
            if !failed {
                do {
                    try write(batch)
                    for buffer in batch { hashing.add(buffer) }
                } catch {
                    problem = error as? HubError ?? .failed(what: "Writing \(path)", reason: "\(error)")
                }
            }

            condition.lock()
            for buffer in batch { queuedBytes -= buffer.readableBytes }
            writing = false
            if let problem, failure == nil { failure = problem }
            var released: EventLoopPromise<Void>?
            if waiter != nil, failure != nil || queuedBytes < Self.limit / 2 {
                released = waiter
                waiter = nil
            }
            let failure = failure
            condition.broadcast()
            condition.unlock()
            if let failure { released?.fail(failure) } else { released?.succeed(()) }
        }
    }

    /// Appends `batch` with `writev`, as many buffers per call as the system takes, resuming short writes.
    private func write(_ batch: [ByteBuffer]) throws {
        var index = 0
        var skip = 0 // bytes of batch[index] already written
        while index < batch.count {
            let count = min(batch.count - index, Self.vectorLimit)
            var vectors: [iovec] = []
            vectors.reserveCapacity(count)
            var pinned: [ByteBuffer] = []
            for position in index..<index + count {
                var buffer = batch[position]
                if position == index { buffer.moveReaderIndex(forwardBy: skip) }
                pinned.append(buffer)
            }
            // The buffers stay alive (in `pinned`) while the vectors point into them.
            let written: Int = withExtendedLifetime(pinned) {
                for buffer in pinned {
                    buffer.withUnsafeReadableBytes { bytes in
                        vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count))
                    }
                }
                return vectors.withUnsafeBufferPointer { writev(descriptor, $0.baseAddress, Int32($0.count)) }
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw HubError.writing(path, errno: errno)
            }
            offset += written
            var left = written
            while left > 0 {
                let size = batch[index].readableBytes - skip
                if left >= size {
                    left -= size
                    index += 1
                    skip = 0
                } else {
                    skip += left
                    left = 0
                }
            }
            startWriteback()
        }
    }

    /// Asks the kernel to start writing the last few MiB to the disk without waiting for it (Linux);
    /// elsewhere the `fsync` at the end does all of it.
    private func startWriteback() {
        #if os(Linux)
        guard offset - writebackStart >= Self.writebackStep, let syncFileRange = Self.syncFileRange else { return }
        _ = syncFileRange(descriptor, Int64(writebackStart), Int64(offset - writebackStart), Self.syncFileRangeWrite)
        writebackStart = offset
        #endif
    }

    #if os(Linux)
    /// glibc's `sync_file_range`, looked up at run time: Swift's Glibc module leaves out GNU extensions.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? =
        dlsym(nil, "sync_file_range").map { unsafeBitCast($0, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self) }
    /// SYNC_FILE_RANGE_WRITE in <fcntl.h>: start writing dirty pages of the range, do not wait.
    private static let syncFileRangeWrite: UInt32 = 2
    #endif
}
