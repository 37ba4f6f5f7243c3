import Foundation

/// SHA-256 (FIPS 180-4), to verify installed model files with Foundation alone (CryptoKit is not on
/// Linux). Feed bytes in any number of pieces, then call `finish()` once.
///
/// Whole blocks are hashed straight from the caller's memory: the state lives in eight stored words,
/// the message schedule in one stack buffer per `update`, and the 64 rounds run as eight unrolled
/// groups of eight in which the working variables trade places instead of being shifted (FIPS 180-4
/// section 6.2.2 computes the same values). Only the bytes of a block split across two calls are copied.
public struct SHA256: Sendable {
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var h0: UInt32 = 0x6a09e667, h1: UInt32 = 0xbb67ae85, h2: UInt32 = 0x3c6ef372, h3: UInt32 = 0xa54ff53a
    private var h4: UInt32 = 0x510e527f, h5: UInt32 = 0x9b05688c, h6: UInt32 = 0x1f83d9ab, h7: UInt32 = 0x5be0cd19
    /// Bytes of an unfinished 64-byte block (fewer than 64).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            offset = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<offset]))
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - offset) & ~63
        if whole > 0 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + whole]))
            offset += whole
        }
        if offset < bytes.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// Adds `data` to the message.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex digits; pads and finishes, so call it once.
    public mutating func finish() -> String {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (119 - pending.count) % 64)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBytes { update($0) }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            for shift in stride(from: 28, through: 0, by: -4) { text.append(digits[Int(word >> UInt32(shift) & 15)]) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Every 64-byte block of `blocks` (a multiple of 64 bytes long) into the state.
    private mutating func compress(_ blocks: UnsafeRawBufferPointer) {
        Self.roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                for start in stride(from: 0, to: blocks.count, by: 64) {
                    for index in 0..<16 {
                        w[index] = UInt32(bigEndian: blocks.loadUnaligned(fromByteOffset: start + 4 * index, as: UInt32.self))
                    }
                    for index in 16..<64 {
                        let early = w[index - 15], late = w[index - 2]
                        let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
                        let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
                        w[index] = w[index - 16] &+ sigma0 &+ w[index - 7] &+ sigma1
                    }
                    var index = 0
                    while index < 64 {
                        Self.round(a, b, c, &d, e, f, g, &h, k[index] &+ w[index])
                        Self.round(h, a, b, &c, d, e, f, &g, k[index + 1] &+ w[index + 1])
                        Self.round(g, h, a, &b, c, d, e, &f, k[index + 2] &+ w[index + 2])
                        Self.round(f, g, h, &a, b, c, d, &e, k[index + 3] &+ w[index + 3])
                        Self.round(e, f, g, &h, a, b, c, &d, k[index + 4] &+ w[index + 4])
                        Self.round(d, e, f, &g, h, a, b, &c, k[index + 5] &+ w[index + 5])
                        Self.round(c, d, e, &f, g, h, a, &b, k[index + 6] &+ w[index + 6])
                        Self.round(b, c, d, &e, f, g, h, &a, k[index + 7] &+ w[index + 7])
                        index += 8
                    }
                    a &+= h0; b &+= h1; c &+= h2; d &+= h3; e &+= h4; f &+= h5; g &+= h6; h &+= h7
                    (h0, h1, h2, h3, h4, h5, h6, h7) = (a, b, c, d, e, f, g, h)
                }
            }
        }
    }

    /// One round of FIPS 180-4 (6.2.2 step 3) with `constantPlusWord` = K[t] + W[t]. The caller names
    /// the eight working variables in their current order; the round adds T1 into `d` (the new `e`) and
    /// leaves T1 + T2 in `h` (the new `a`), so the next round is the same call with the names rotated.
    @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                              _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ constantPlusWord: UInt32) {
        let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let choice = g ^ (e & (f ^ g))
        let first = h &+ sum1 &+ choice &+ constantPlusWord
        let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
        let majority = (a & b) | (c & (a | b))
        d &+= first
        h = first &+ sum0 &+ majority
    }

    /// The SHA-256 of the file at `url`.
    public static func hex(ofFileAt url: URL) throws -> String {
        var hasher = SHA256()
        try forEachChunk(ofFileAt: url) { hasher.update($0) }
        return hasher.finish()
    }

    /// Reads the file at `url` from start to end four megabytes at a time into one reused buffer and
    /// hands each piece to `body`; for hashing a file with this type or another implementation.
    public static func forEachChunk(ofFileAt url: URL, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
