/// SentencePiece's normaliser: the model's compiled character map (NFKC and friends), then
/// whitespace handling (trim, collapse, the leading `▁`, spaces to `▁`), as `sentencepiece` does it.
struct SentencePieceNormalizer: Sendable {
    /// Darts double-array units.
    private let trie: [UInt32]
    /// Replacement strings, each ending with a NUL byte; the trie's values are offsets into it.
    private let replacements: [UInt8]
    private let addsDummyPrefix: Bool
    private let removesExtraWhitespace: Bool
    private let escapesWhitespace: Bool
    private let treatsWhitespaceAsSuffix: Bool
    /// User-defined pieces, copied through unnormalised.
    private let userDefined: ByteTrie

    init(model: SentencePieceModel, userDefined: ByteTrie, source: String) throws {
        let map = model.precompiledCharsMap
        if map.isEmpty {
            trie = []
            replacements = []
        } else {
            guard map.count > 4 else {
                throw TokenizerError.malformedFile(path: source, reason: "precompiled_charsmap is too short")
            }
            let trieSize = Int(UInt32(map[0]) | UInt32(map[1]) << 8 | UInt32(map[2]) << 16 | UInt32(map[3]) << 24)
            guard trieSize % 4 == 0, trieSize > 0, 4 + trieSize <= map.count else {
                throw TokenizerError.malformedFile(path: source, reason: "precompiled_charsmap's trie size \(trieSize) does not fit")
            }
            var units: [UInt32] = []
            units.reserveCapacity(trieSize / 4)
            for offset in stride(from: 4, to: 4 + trieSize, by: 4) {
                units.append(UInt32(map[offset]) | UInt32(map[offset + 1]) << 8 | UInt32(map[offset + 2]) << 16
                    | UInt32(map[offset + 3]) << 24)
            }
            trie = units
            replacements = Array(map[(4 + trieSize)...])
        }
        addsDummyPrefix = model.addsDummyPrefix
        removesExtraWhitespace = model.removesExtraWhitespace
        escapesWhitespace = model.escapesWhitespace
        treatsWhitespaceAsSuffix = model.treatsWhitespaceAsSuffix
        self.userDefined = userDefined
    }

    private static let space = Array("\u{2581}".utf8)
    private static let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// The normalised UTF-8 of `input`.
    func normalize(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var position = 0
        if removesExtraWhitespace {
            while position < input.count {
                let (replacement, length) = prefix(input, at: position)
                guard replacement.count == 1, replacement.first == 0x20 else { break }
                position += length
            }
        }
        var output: [UInt8] = []
        if position == input.count { return output }
        output.reserveCapacity(input.count * 3 / 2)
        let spaceMark = escapesWhitespace ? Self.space : [0x20]
        if addsDummyPrefix, !treatsWhitespaceAsSuffix { output.append(contentsOf: spaceMark) }
        var previousWasSpace = removesExtraWhitespace
        while position < input.count {
            let (replacement, length) = prefix(input, at: position)
            var start = replacement.startIndex
            if previousWasSpace {
                while start < replacement.endIndex, replacement[start] == 0x20 { start += 1 }
            }
            if start < replacement.endIndex {
                for byte in replacement[start...] {
                    if byte == 0x20 { output.append(contentsOf: spaceMark) } else { output.append(byte) }
                }
                previousWasSpace = replacement.last == 0x20
            }
            position += length
            if !removesExtraWhitespace { previousWasSpace = false }
        }
        if removesExtraWhitespace {
            while output.count >= spaceMark.count, output.suffix(spaceMark.count).elementsEqual(spaceMark) {
                output.removeLast(spaceMark.count)
            }
        }
        if addsDummyPrefix, treatsWhitespaceAsSuffix { output.append(contentsOf: spaceMark) }
        return output
    }

    /// The replacement for the longest rule matching at `position`, and how many input bytes it covers.
    private func prefix(_ input: UnsafeBufferPointer<UInt8>, at position: Int) -> (ArraySlice<UInt8>, Int) {
        let rest = UnsafeBufferPointer(rebasing: input[position...])
        if let length = userDefined.longestPrefix(of: rest)?.length {
            return (ArraySlice(rest[0..<length]), length)
        }
        var longestLength = 0
        var longestValue = 0
        if !trie.isEmpty {
            commonPrefixes(of: rest) { value, length in
                if length > longestLength {
                    longestLength = length
                    longestValue = value
                }
            }
        }
        if longestLength == 0 || longestValue >= replacements.count {
            let length = UTF8Validation.validLength(rest)
            if length == 0 { return (ArraySlice(Self.replacementCharacter), 1) }
            return (ArraySlice(rest[0..<length]), length)
        }
        var end = longestValue
        while end < replacements.count, replacements[end] != 0 { end += 1 }
        return (replacements[longestValue..<end], longestLength)
    }

    /// Darts-clone's common-prefix search: calls `found(value, length)` for each key that is a prefix.
    private func commonPrefixes(of key: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
        func offset(_ unit: UInt32) -> Int { Int((unit >> 10) << ((unit & (1 << 9)) >> 6)) }
        var node = offset(trie[0])
        for index in 0..<key.count {
            let byte = Int(key[index])
            node ^= byte
            guard node < trie.count else { return }
            let unit = trie[node]
            guard unit & ((1 << 31) | 0xFF) == UInt32(byte) else { return }
            node ^= offset(unit)
            if (unit >> 8) & 1 == 1, node < trie.count {
                found(Int(trie[node] & 0x7FFF_FFFF), index + 1)
            }
        }
    }
}

/// A trie over byte strings with an integer value per key.
struct ByteTrie: Sendable {
    private var edges: [Int: Int32] = [:]
    private var values: [Int32] = [-1]

    /// Adds `key` with `value`.
    mutating func insert(_ key: some Sequence<UInt8>, value: Int) {
        var node = 0
        for byte in key {
            if let child = edges[node << 8 | Int(byte)] {
                node = Int(child)
            } else {
                values.append(-1)
                let child = values.count - 1
                edges[node << 8 | Int(byte)] = Int32(child)
                node = child
            }
        }
        values[node] = Int32(value)
    }

    var isEmpty: Bool { values.count == 1 }

    /// Calls `found(value, length)` for every key that is a prefix of `bytes`, shortest first.
    func prefixes(of bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, _ found: (Int, Int) -> Void) {
        var node = 0
        var position = start
        while position < bytes.count, let child = edges[node << 8 | Int(bytes[position])] {
            node = Int(child)
            position += 1
            if values[node] >= 0 { found(Int(values[node]), position - start) }
        }
    }

    /// The longest key that is a prefix of `bytes`.
    func longestPrefix(of bytes: UnsafeBufferPointer<UInt8>) -> (value: Int, length: Int)? {
        if isEmpty { return nil }
        var best: (Int, Int)? = nil
        prefixes(of: bytes) { best = ($0, $1) }
        return best
    }

    /// The value stored for exactly `key`.
    func value(of key: some Sequence<UInt8>) -> Int? {
        var node = 0
        for byte in key {
            guard let child = edges[node << 8 | Int(byte)] else { return nil }
            node = Int(child)
        }
        return values[node] >= 0 ? Int(values[node]) : nil
    }
}
