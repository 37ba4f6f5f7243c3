@testable import ChorusHub
import ChorusModels
import Foundation
import NIOCore
import NIOPosix
import Testing

@Suite struct PartialFileTests {
    /// 300 buffers of 64 KiB + 5 bytes (about 19 MiB, several times `WritingThread.limit`), each different.
    static let buffers = (0..<300).map { index in
        ByteBuffer(bytes: (0..<(65_536 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) })
    }

    static func expected(after prefix: Data = Data()) -> (bytes: Data, sha256: String) {
        var bytes = prefix
        for buffer in buffers { bytes.append(contentsOf: buffer.readableBytesView) }
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return (bytes, hasher.finish())
    }

    @Test func buffersFromAnEventLoopAreWrittenInOrderHashedAndPushBack() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("model.onnx.incomplete")
        let file = try PartialFile(at: url)
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        // The first half in one burst on the event loop (about 9.5 MiB, far faster than a disk takes it):
        // past 4 MiB queued, the futures handed back wait for the writer.
        let burst = try await eventLoop.submit { () -> [(EventLoopFuture<Void>, Bool)] in
            Self.buffers.prefix(150).map { buffer in
                let accepted = file.append(buffer, on: eventLoop)
                let completed = Completed()
                accepted.whenComplete { _ in completed.value = true } // runs at once when already done
                return (accepted, completed.value)
            }
        }.get()
        #expect(burst.contains { !$0.1 }, "9.5 MiB queued at once never met the 4 MiB limit")
        for (accepted, _) in burst { try await accepted.get() }
        // The rest as AsyncHTTPClient hands them over: the next buffer once the last one's future completed.
        for buffer in Self.buffers.dropFirst(150) {
            try await eventLoop.submit { file.append(buffer, on: eventLoop) }.get().get()
        }
        #expect(file.size == Self.expected().bytes.count)
        let hash = try file.finish()
        #expect(hash == Self.expected().sha256)
        #expect(try Data(contentsOf: url) == Self.expected().bytes)
    }

    @Test func aResumedFileHashesItsBytesFirstAndARestartEmptiesIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("model.onnx.incomplete")
        let prefix = Data("bytes of an earlier attempt".utf8)
        try prefix.write(to: url)
        let resumed = try PartialFile(at: url)
        #expect(resumed.size == prefix.count)
        for buffer in Self.buffers { try resumed.append(Data(buffer.readableBytesView)) }
        #expect(try resumed.finish() == Self.expected(after: prefix).sha256)
        #expect(try Data(contentsOf: url) == Self.expected(after: prefix).bytes)

        let restarted = try PartialFile(at: url)
        for buffer in Self.buffers.prefix(100) { try restarted.append(Data(buffer.readableBytesView)) }
        try restarted.restart()
        #expect(restarted.size == 0)
        for buffer in Self.buffers { try restarted.append(Data(buffer.readableBytesView)) }
        #expect(try restarted.finish() == Self.expected().sha256)
        #expect(try Data(contentsOf: url) == Self.expected().bytes)
    }

    @Test func anAbandonedAttemptKeepsWhatItQueuedForTheNextToResume() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("model.onnx.incomplete")
        let first = try PartialFile(at: url)
        for buffer in Self.buffers.prefix(150) { try first.append(Data(buffer.readableBytesView)) }
        first.abandon()
        let second = try PartialFile(at: url)
        #expect(second.size == 150 * (65_536 + 5))
        for buffer in Self.buffers.dropFirst(150) { try second.append(Data(buffer.readableBytesView)) }
        #expect(try second.finish() == Self.expected().sha256)
    }

    @Test func aWriteErrorFailsTheNextBufferAndTheFinish() async throws {
        // A descriptor open for reading only: every write fails with EBADF.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("read-only").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let writer = WritingThread(descriptor: descriptor, path: path, offset: 0, hashing: HashingThread())
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        try writer.add(Self.buffers[0])
        #expect(throws: HubError.self) { try writer.drain() }
        let next = try await eventLoop.submit { writer.add(Self.buffers[1], on: eventLoop) }.get()
        await #expect(throws: HubError.self) { try await next.get() }
        writer.stop(dropping: false)
        writer.hashing.cancel()
    }
}

/// Whether a future's callback ran, read back on the event loop that ran it.
private final class Completed: @unchecked Sendable {
    var value = false
}
