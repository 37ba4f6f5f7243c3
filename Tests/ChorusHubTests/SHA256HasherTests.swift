import ChorusFiles
@testable import ChorusHub
import ChorusModels
import Foundation
import NIOCore
import Testing

@Suite struct SHA256HasherTests {
    @Test func agreesWithThePortableHashAndPublishedVectors() throws {
        let empty = SHA256Hasher()
        #expect(empty.finish() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var abc = SHA256Hasher()
        abc.update(Data("abc".utf8))
        #expect(abc.finish() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 500, 999, 1000] {
            var fast = SHA256Hasher()
            var portable = ChorusFiles.SHA256()
            message.withUnsafeBytes { bytes in
                fast.update(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
                fast.update(UnsafeRawBufferPointer(rebasing: bytes[split...]))
                portable.update(bytes)
            }
            #expect(fast.finish() == portable.finish(), "split at \(split)")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-hasher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(message).write(to: file)
        #expect(try SHA256Hasher.hex(ofFileAt: file) == ChorusFiles.SHA256.hex(ofFileAt: file))
    }

    @Test func hashingThreadGivesTheDigestOfEverythingQueuedInOrder() {
        // 40 buffers of 1 MiB + 3 bytes, five times HashingThread.limit, so `add` has to wait for the thread.
        let buffers = (0..<40).map { index in ByteBuffer(bytes: (0..<(1 << 20) + 3).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }) }
        var expected = SHA256Hasher()
        for buffer in buffers { buffer.withUnsafeReadableBytes { expected.update($0) } }
        var prefix = SHA256Hasher()
        prefix.update(Data("resumed".utf8))
        var whole = prefix
        for buffer in buffers { buffer.withUnsafeReadableBytes { whole.update($0) } }

        let thread = HashingThread()
        for buffer in buffers { thread.add(buffer) }
        #expect(thread.finish() == expected.finish())
        let continuing = HashingThread(continuing: prefix)
        for buffer in buffers { continuing.add(buffer) }
        #expect(continuing.finish() == whole.finish())
        let cancelled = HashingThread()
        for buffer in buffers.prefix(3) { cancelled.add(buffer) }
        cancelled.cancel()
    }
}
