/// Remembers the ids of pieces already merged during one encode call: text repeats its words,
/// and a hash lookup is cheaper than the merge loop.
struct WordCache {
    private static let maxPieceLength = 48
    private static let capacity = 1 << 14

    private var slots = [Int32](repeating: -1, count: capacity * 2)
    private var hashes: [UInt64] = []
    private var keyStarts: [Int32] = []
    private var keyBytes: [UInt8] = []
    private var valueStarts: [Int32] = []
    private var values: [Int32] = []

    /// Appends the cached ids of `piece` to `output` and returns true, or returns false.
    /// When false, `hash` is set for `insert`.
    @inline(__always)
    mutating func lookup(_ piece: UnsafeBufferPointer<UInt8>, into output: inout [Int32], hash: inout UInt64) -> Bool {
        guard piece.count <= Self.maxPieceLength else { return false }
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in piece { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = h
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: h >> 7) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { return false }
            if hashes[entry] == h, matches(entry, piece) {
                let end = entry + 1 < valueStarts.count ? Int(valueStarts[entry + 1]) : values.count
                output.append(contentsOf: values[Int(valueStarts[entry])..<end])
                return true
            }
            slot = (slot + 1) & mask
        }
    }

    private func matches(_ entry: Int, _ piece: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(keyStarts[entry])
        let end = entry + 1 < keyStarts.count ? Int(keyStarts[entry + 1]) : keyBytes.count
        guard end - start == piece.count else { return false }
        for index in 0..<piece.count where keyBytes[start + index] != piece[index] { return false }
        return true
    }

    /// Remembers that `piece`, whose hash `lookup` computed, encodes to `ids`.
    mutating func insert(_ piece: UnsafeBufferPointer<UInt8>, hash: UInt64, ids: ArraySlice<Int32>) {
        guard piece.count <= Self.maxPieceLength else { return }
        if hashes.count >= Self.capacity { removeAll() }
        let entry = Int32(hashes.count)
        hashes.append(hash)
        keyStarts.append(Int32(keyBytes.count))
        keyBytes.append(contentsOf: piece)
        valueStarts.append(Int32(values.count))
        values.append(contentsOf: ids)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash >> 7) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    private mutating func removeAll() {
        for index in slots.indices { slots[index] = -1 }
        hashes.removeAll(keepingCapacity: true)
        keyStarts.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        valueStarts.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }
}
