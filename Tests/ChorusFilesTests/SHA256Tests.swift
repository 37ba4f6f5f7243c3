import ChorusFiles
import Foundation
import Testing

@Suite struct SHA256Tests {
    static func digest(_ bytes: [UInt8]) -> String {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// 300 bytes that differ from one position to the next, so a byte hashed twice or skipped shows.
    static let message = (0..<300).map { UInt8($0 * 7 % 251) }

    @Test func matchesPublishedVectors() {
        // FIPS 180-4's (csrc.nist.gov examples) and SHAVS short messages of 1 and 4 bytes.
        #expect(Self.digest([0xbd]) == "68325720aabd7c82f30f554b313d0570c95accbb7dc4b5aae11204c08ffe732b")
        #expect(Self.digest([0xc9, 0x8c, 0x8e, 0x55]) == "7abc22c0ae5af26ce93dbb94433a0e0b2e119d014f8e7f65bd56c61ccccd9504")
        #expect(Self.digest(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(Self.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func everyPaddingLengthMatchesPython() {
        // Every length from 0 to 129 bytes crosses each padding case (55, 56, 63, 64, 119, 120 bytes);
        // their 130 hex digests joined are hashed once more. The expected value is Python's:
        // hashlib.sha256("".join(hashlib.sha256(m[:n]).hexdigest() for n in range(130)).encode()).
        let joined = (0..<130).map { Self.digest(Array(Self.message[..<$0])) }.joined()
        #expect(Self.digest(Array(joined.utf8)) == "f0de5c8cfc47aaf6d6d0d4cc2b9f8bd534b8c45180a10791e0585033eb8a3121")
        #expect(Self.digest(Self.message) == "6a4239d205133d8402a260719140095ed928157baf8617038b67217d5df2d788")
    }

    @Test func piecesSplitAnywhereGiveTheSameDigest() {
        let whole = Self.digest(Self.message)
        for first in 0...Self.message.count {
            for second in stride(from: first, through: Self.message.count, by: 13) {
                var hasher = SHA256()
                Self.message.withUnsafeBytes { bytes in
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[0..<first]))
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[first..<second]))
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[second...]))
                }
                #expect(hasher.finish() == whole, "split at \(first) and \(second)")
            }
        }
    }

    @Test func fileLongerThanTheReadBufferMatchesTheBytes() throws {
        // Longer than hex(ofFileAt:)'s 4 MiB read and not a multiple of 64.
        let bytes = (0..<(9 << 20) + 77).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("blob")
        try Data(bytes).write(to: file)
        // Python: hashlib.sha256(bytes(((i * 2654435761) >> 13) & 255 for i in range((9 << 20) + 77))).
        let expected = "a19afb5099e9a2e8fb2008236cfacac44e6fb92566a59663d91305abe0769634"
        #expect(Self.digest(bytes) == expected)
        #expect(try SHA256.hex(ofFileAt: file) == expected)
        #expect(throws: (any Error).self) { try SHA256.hex(ofFileAt: folder.appendingPathComponent("absent")) }
    }
}
