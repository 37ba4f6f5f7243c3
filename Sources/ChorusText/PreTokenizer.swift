/// Splits text into the pieces BPE runs on, as the GPT-2 and Qwen2 regular expressions do.
///
/// The expressions are matched by hand rather than with a regex engine: each alternative is a
/// branch below, tried in the expression's order with the same greedy and backtracking outcome.
/// Letters (`\p{L}`), numbers (`\p{N}`) and whitespace (`\s`, Unicode White_Space) are the full
/// Unicode classes.
public struct PreTokenizer: Sendable, Equatable {
    /// A known split expression.
    public enum Pattern: String, Sendable, CaseIterable {
        /// GPT-2: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
        case gpt2
        /// Qwen2: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
        case qwen2

        /// The expression as tokenizer.json spells it.
        public var expression: String {
            switch self {
            case .gpt2:
                return #"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"#
            case .qwen2:
                return #"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#
            }
        }

        /// The pattern whose expression is `expression`, if it is one of the known ones.
        public init?(expression: String) {
            guard let match = Self.allCases.first(where: { $0.expression == expression }) else { return nil }
            self = match
        }
    }

    /// The split expression.
    public let pattern: Pattern

    /// A pre-tokenizer for `pattern`.
    public init(_ pattern: Pattern) {
        self.pattern = pattern
    }

    /// The pieces of `text`.
    public func split(_ text: String) -> [Substring] {
        var text = text
        var ranges: [Range<Int>] = []
        text.withUTF8 { bytes in split(bytes) { ranges.append($0..<$1) } }
        let utf8 = text.utf8
        return ranges.map { range in
            let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let end = utf8.index(start, offsetBy: range.count)
            return text[start..<end]
        }
    }

    /// Calls `body` with the byte range (start, end) of each piece of the UTF-8 text `bytes`.
    func split(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int) throws -> Void) rethrows {
        let scanner = Scanner(bytes: bytes)
        var start = 0
        while start < bytes.count {
            let end = pattern == .qwen2 ? scanner.matchQwen2(at: start) : scanner.matchGPT2(at: start)
            try body(start, end)
            start = end
        }
    }
}

/// The character classes the split expressions use.
struct CharacterClass: OptionSet {
    let rawValue: UInt8
    static let letter = CharacterClass(rawValue: 1)
    static let number = CharacterClass(rawValue: 2)
    static let whitespace = CharacterClass(rawValue: 4)
    /// `\r` or `\n`.
    static let lineBreak = CharacterClass(rawValue: 8)
    /// Neither letter, number nor whitespace: `[^\s\p{L}\p{N}]`.
    static let other = CharacterClass(rawValue: 16)

    static func of(_ value: UInt32) -> CharacterClass {
        if value < 0x10000 { return CharacterClass(rawValue: basicPlane[Int(value)]) }
        return compute(value)
    }

    private static let basicPlane: [UInt8] = (0..<0x10000).map { compute(UInt32($0)).rawValue }

    private static func compute(_ value: UInt32) -> CharacterClass {
        guard let scalar = Unicode.Scalar(value) else { return .other }  // surrogates
        if value == 0x0A || value == 0x0D { return [.whitespace, .lineBreak] }
        let properties = scalar.properties
        if properties.isWhitespace { return .whitespace }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return .letter
        case .decimalNumber, .letterNumber, .otherNumber:
            return .number
        default:
            return .other
        }
    }
}

/// Reads classes of the scalars of valid UTF-8 and matches the split expressions at a byte offset.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>

    /// The class and byte length of the scalar at `offset`.
    @inline(__always)
    func scalar(at offset: Int) -> (CharacterClass, Int) {
        let lead = bytes[offset]
        if lead < 0x80 { return (CharacterClass(rawValue: Self.ascii[Int(lead)]), 1) }
        var value: UInt32
        let length: Int
        if lead < 0xE0 {
            value = UInt32(lead & 0x1F)
            length = 2
        } else if lead < 0xF0 {
            value = UInt32(lead & 0x0F)
            length = 3
        } else {
            value = UInt32(lead & 0x07)
            length = 4
        }
        for index in 1..<length { value = value << 6 | UInt32(bytes[offset + index] & 0x3F) }
        return (CharacterClass.of(value), length)
    }

    private static let ascii: [UInt8] = (0..<128).map { CharacterClass.of(UInt32($0)).rawValue }

    /// The end of the run of scalars in `wanted` that starts at `offset`.
    @inline(__always)
    func run(of wanted: CharacterClass, from offset: Int) -> Int {
        var end = offset
        while end < bytes.count {
            let (cls, length) = scalar(at: end)
            guard !cls.isDisjoint(with: wanted) else { break }
            end += length
        }
        return end
    }

    /// Whether the scalar at `offset` exists and is in `wanted`.
    @inline(__always)
    func starts(_ wanted: CharacterClass, at offset: Int) -> Bool {
        offset < bytes.count && !scalar(at: offset).0.isDisjoint(with: wanted)
    }

    /// The end of `'s|'t|'re|'ve|'m|'ll|'d` at `offset` (the apostrophe), if one matches.
    func contraction(at offset: Int, ignoringCase: Bool) -> Int? {
        func letter(_ index: Int) -> UInt8? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            return ignoringCase && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
        }
        guard let first = letter(offset + 1) else { return nil }
        switch first {
        case UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "m"), UInt8(ascii: "d"):
            return offset + 2
        case 0xC5 where ignoringCase && letter(offset + 2) == 0xBF:  // U+017F LATIN SMALL LETTER LONG S folds to s
            return offset + 3
        case UInt8(ascii: "r"), UInt8(ascii: "v"):
            return letter(offset + 2) == UInt8(ascii: "e") ? offset + 3 : nil
        case UInt8(ascii: "l"):
            return letter(offset + 2) == UInt8(ascii: "l") ? offset + 3 : nil
        default:
            return nil
        }
    }

    /// `\s+(?!\S)|\s+` at `offset`, which starts a whitespace run ending at `runEnd`,
    /// whose last scalar starts at `lastStart`.
    @inline(__always)
    func whitespace(from offset: Int, runEnd: Int, lastStart: Int) -> Int {
        // Before a non-space, the lookahead gives the last space back to the next piece.
        if runEnd < bytes.count && lastStart > offset { return lastStart }
        return runEnd
    }

    /// The end of the Qwen2 match at `offset`.
    func matchQwen2(at offset: Int) -> Int {
        if bytes[offset] == UInt8(ascii: "'"), let end = contraction(at: offset, ignoringCase: true) { return end }
        let (cls, length) = scalar(at: offset)
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if cls.contains(.letter) { return run(of: .letter, from: offset + length) }
        if cls.isDisjoint(with: [.lineBreak, .number]), starts(.letter, at: offset + length) {
            return run(of: .letter, from: offset + length)
        }
        // \p{N}
        if cls.contains(.number) { return offset + length }
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        var symbols = offset
        if bytes[offset] == UInt8(ascii: " "), starts(.other, at: offset + 1) { symbols = offset + 1 }
        if starts(.other, at: symbols) {
            let end = run(of: .other, from: symbols)
            return run(of: .lineBreak, from: end)
        }
        // Whitespace: \s*[\r\n]+ ends after the run's last line break; else \s+(?!\S) or \s+.
        var end = offset
        var lastStart = offset
        var afterLastBreak: Int? = nil
        while end < bytes.count {
            let (next, nextLength) = scalar(at: end)
            guard next.contains(.whitespace) else { break }
            lastStart = end
            end += nextLength
            if next.contains(.lineBreak) { afterLastBreak = end }
        }
        if let afterLastBreak { return afterLastBreak }
        return whitespace(from: offset, runEnd: end, lastStart: lastStart)
    }

    /// The end of the GPT-2 match at `offset`.
    func matchGPT2(at offset: Int) -> Int {
        if bytes[offset] == UInt8(ascii: "'"), let end = contraction(at: offset, ignoringCase: false) { return end }
        let (cls, length) = scalar(at: offset)
        // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+', in that order.
        let spaced = bytes[offset] == UInt8(ascii: " ") && offset + 1 < bytes.count
        let nextClass = spaced ? scalar(at: offset + 1).0 : []
        for wanted in [CharacterClass.letter, .number, .other] {
            if cls.contains(wanted) { return run(of: wanted, from: offset + length) }
            if spaced, nextClass.contains(wanted) { return run(of: wanted, from: offset + 1) }
        }
        var end = offset
        var lastStart = offset
        while end < bytes.count {
            let (next, nextLength) = scalar(at: end)
            guard next.contains(.whitespace) else { break }
            lastStart = end
            end += nextLength
        }
        return whitespace(from: offset, runEnd: end, lastStart: lastStart)
    }
}
