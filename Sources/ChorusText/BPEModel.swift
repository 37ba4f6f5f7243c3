/// A byte-level BPE vocabulary and its merge ranks, and the merge loop that turns one
/// pre-tokenized piece into token ids.
///
/// Merges run as in Hugging Face `tokenizers`: repeatedly the adjacent pair with the lowest
/// rank is merged, the leftmost first among equals.
struct BPEModel: Sendable {
    /// Token spellings (byte-level characters) by id; empty where an id is unused.
    let tokens: [String]
    /// Id by token spelling.
    let ids: [String: Int32]
    /// The id of each single byte's token, or -1 when the vocabulary lacks it.
    let byteIDs: [Int32]
    /// Merge rank and result by pair.
    let merges: MergeTable
    /// Whether a piece that is itself a token skips merging (`ignore_merges` in tokenizer.json).
    let ignoresMerges: Bool
    /// The id used for bytes the vocabulary lacks, if any.
    let unknownID: Int32?

    /// The ids a vocabulary of `entries` tokens may use are below this. Real vocabularies number their
    /// tokens from 0 with few gaps; tables indexed by id are as long as the largest id, so the limit keeps
    /// them proportional to the file, whatever id a damaged file declares.
    static func idLimit(entries: Int) -> Int { 2 * entries + 65_536 }

    /// Builds the model; `merges` are pairs of token spellings in rank order.
    init(
        vocabulary: [String: Int], merges pairs: [(String, String)], ignoresMerges: Bool = false,
        unknownToken: String? = nil, source: String
    ) throws {
        var ids: [String: Int32] = [:]
        ids.reserveCapacity(vocabulary.count)
        var largest = (token: "", id: -1)
        for (token, id) in vocabulary {
            guard id >= 0, id < Int(Int32.max) else {
                throw TokenizerError.malformedFile(path: source, reason: "token \(token.debugDescription) has id \(id)")
            }
            ids[token] = Int32(id)
            if id > largest.id { largest = (token, id) }
        }
        let limit = Self.idLimit(entries: vocabulary.count)
        guard largest.id < limit else {
            throw TokenizerError.malformedFile(
                path: source,
                reason: "token \(largest.token.debugDescription) has id \(largest.id), but the vocabulary holds only \(vocabulary.count) tokens (ids must be below \(limit))")
        }
        var tokens = [String](repeating: "", count: largest.id + 1)
        for (token, id) in ids { tokens[Int(id)] = token }

        var table = MergeTable(capacity: pairs.count)
        for (rank, (left, right)) in pairs.enumerated() {
            guard let leftID = ids[left], let rightID = ids[right] else {
                let missing = ids[left] == nil ? left : right
                throw TokenizerError.malformedFile(
                    path: source, reason: "merge \(rank + 1) (\(left) \(right)) uses \(missing.debugDescription), which is not in the vocabulary")
            }
            guard let merged = ids[left + right] else {
                throw TokenizerError.malformedFile(
                    path: source, reason: "merge \(rank + 1) (\(left) \(right)) makes \((left + right).debugDescription), which is not in the vocabulary")
            }
            table.insert(left: leftID, right: rightID, rank: Int32(rank), merged: merged)
        }

        self.tokens = tokens
        self.ids = ids
        self.byteIDs = ByteLevel.characters.map { ids[String($0)] ?? -1 }
        self.merges = table
        self.ignoresMerges = ignoresMerges
        if let unknownToken {
            guard let id = ids[unknownToken] else {
                throw TokenizerError.malformedFile(
                    path: source, reason: "the unknown token \(unknownToken.debugDescription) is not in the vocabulary")
            }
            self.unknownID = id
        } else {
            self.unknownID = nil
        }
    }

    /// Appends the ids of the piece `bytes` to `output`.
    func encode(piece bytes: UnsafeBufferPointer<UInt8>, into output: inout [Int32], scratch: inout MergeScratch) throws {
        if bytes.count == 1 {
            output.append(try id(ofByte: bytes[0]))
            return
        }
        if ignoresMerges, let whole = ids[ByteLevel.encode(bytes)] {
            output.append(whole)
            return
        }
        scratch.reset()
        for byte in bytes { scratch.symbols.append(try id(ofByte: byte)) }
        if scratch.symbols.count <= 24 {
            mergeByScanning(&scratch.symbols)
            output.append(contentsOf: scratch.symbols)
        } else {
            mergeWithQueue(&scratch)
            var index = 0
            while index != -1 {
                output.append(scratch.symbols[index])
                index = Int(scratch.next[index])
            }
        }
    }

    private func id(ofByte byte: UInt8) throws -> Int32 {
        let id = byteIDs[Int(byte)]
        if id >= 0 { return id }
        if let unknownID { return unknownID }
        throw TokenizerError.unknownToken(String(ByteLevel.characters[Int(byte)]))
    }

    /// Quadratic but allocation-free merging, fastest for the short pieces most text is made of.
    private func mergeByScanning(_ symbols: inout [Int32]) {
        while symbols.count > 1 {
            var bestRank = Int32.max
            var bestIndex = -1
            var bestMerged: Int32 = 0
            for index in 0..<(symbols.count - 1) {
                if let (rank, merged) = merges.lookup(left: symbols[index], right: symbols[index + 1]),
                   rank < bestRank {
                    bestRank = rank
                    bestIndex = index
                    bestMerged = merged
                }
            }
            if bestIndex < 0 { return }
            symbols[bestIndex] = bestMerged
            symbols.remove(at: bestIndex + 1)
        }
    }

    /// Merging with a priority queue of candidate pairs over a linked list of symbols, for long pieces.
    private func mergeWithQueue(_ scratch: inout MergeScratch) {
        let count = scratch.symbols.count
        for index in 0..<count {
            scratch.previous.append(Int32(index - 1))
            scratch.next.append(index + 1 < count ? Int32(index + 1) : -1)
            scratch.alive.append(true)
        }
        for index in 0..<(count - 1) {
            if let (rank, _) = merges.lookup(left: scratch.symbols[index], right: scratch.symbols[index + 1]) {
                scratch.queue.push(MergeCandidate(rank: rank, position: Int32(index)))
            }
        }
        while let candidate = scratch.queue.pop() {
            let rank = candidate.rank
            let position = Int(candidate.position)
            guard scratch.alive[position] else { continue }
            let right = Int(scratch.next[position])
            guard right >= 0,
                  let (currentRank, merged) = merges.lookup(left: scratch.symbols[position], right: scratch.symbols[right]),
                  currentRank == rank
            else { continue }
            scratch.symbols[position] = merged
            scratch.alive[right] = false
            let after = scratch.next[right]
            scratch.next[position] = after
            if after >= 0 { scratch.previous[Int(after)] = Int32(position) }
            let before = scratch.previous[position]
            if before >= 0,
               let (newRank, _) = merges.lookup(left: scratch.symbols[Int(before)], right: merged) {
                scratch.queue.push(MergeCandidate(rank: newRank, position: before))
            }
            if after >= 0,
               let (newRank, _) = merges.lookup(left: merged, right: scratch.symbols[Int(after)]) {
                scratch.queue.push(MergeCandidate(rank: newRank, position: Int32(position)))
            }
        }
    }
}

/// Working arrays for the merge loop, reused from piece to piece.
struct MergeScratch {
    var symbols: [Int32] = []
    var previous: [Int32] = []
    var next: [Int32] = []
    var alive: [Bool] = []
    var queue = MinHeap<MergeCandidate>()

    mutating func reset() {
        symbols.removeAll(keepingCapacity: true)
        previous.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        alive.removeAll(keepingCapacity: true)
        queue.removeAll()
    }
}

/// A pair of adjacent symbols that may merge, ordered by rank and then position, so that the
/// leftmost of equally ranked pairs merges first. Both sit in one integer, rank above position,
/// which makes the order a single comparison.
struct MergeCandidate: Comparable {
    private let key: UInt64

    init(rank: Int32, position: Int32) {
        key = UInt64(UInt32(rank)) << 32 | UInt64(UInt32(position))
    }

    var rank: Int32 { Int32(truncatingIfNeeded: key >> 32) }
    var position: Int32 { Int32(truncatingIfNeeded: key & 0xFFFF_FFFF) }

    static func < (a: MergeCandidate, b: MergeCandidate) -> Bool { a.key < b.key }
}

/// An open-addressing hash table from an id pair to its merge rank and merged id.
struct MergeTable: Sendable {
    private var keys: [UInt64]
    private var values: [UInt64]
    private let mask: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: 0, count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func key(_ left: Int32, _ right: Int32) -> UInt64 {
        // Ids are shifted by one so that no key is 0, the empty slot.
        UInt64(UInt32(left) &+ 1) << 32 | UInt64(UInt32(right) &+ 1)
    }

    @inline(__always)
    private func slot(for key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 29) & mask
    }

    /// Adds a merge; a later entry for the same pair replaces the earlier one, as in `tokenizers`.
    mutating func insert(left: Int32, right: Int32, rank: Int32, merged: Int32) {
        let key = Self.key(left, right)
        var index = slot(for: key)
        while keys[index] != 0 {
            if keys[index] == key {
                values[index] = UInt64(UInt32(rank)) << 32 | UInt64(UInt32(merged))
                return
            }
            index = (index + 1) & mask
        }
        keys[index] = key
        values[index] = UInt64(UInt32(rank)) << 32 | UInt64(UInt32(merged))
        count += 1
    }

    /// The rank and merged id of the pair, if it merges.
    @inline(__always)
    func lookup(left: Int32, right: Int32) -> (rank: Int32, merged: Int32)? {
        let key = Self.key(left, right)
        var index = slot(for: key)
        while true {
            let found = keys[index]
            if found == key {
                let value = values[index]
                return (Int32(truncatingIfNeeded: value >> 32), Int32(truncatingIfNeeded: value & 0xFFFF_FFFF))
            }
            if found == 0 { return nil }
            index = (index + 1) & mask
        }
    }
}
