import ChorusFiles
import ChorusModels
import Crypto
import Foundation

/// SHA-256 for downloads, unpacked wheels and `chorus models verify`: swift-crypto's (BoringSSL's
/// assembly, which uses the x86 SHA extensions or the ARMv8 SHA-2 instructions where the CPU has them).
/// On a 500 MB pull it keeps the hash from being the slow step that ChorusModels' portable `SHA256`
/// is; that one stays Foundation-only for apps that load models but never download them. The digest
/// is the same lower-case hex.
struct SHA256Hasher: Sendable {
    private var hash = Crypto.SHA256()

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hash.update(bufferPointer: bytes)
    }

    /// Adds `data` to the message.
    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex digits.
    func finish() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in hash.finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of the file at `url`.
    static func hex(ofFileAt url: URL) throws -> String {
        var hasher = SHA256Hasher()
        try ChorusFiles.SHA256.forEachChunk(ofFileAt: url) { hasher.update($0) }
        return hasher.finish()
    }
}
