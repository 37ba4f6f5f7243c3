/// A token matched whole in the text before any splitting, such as `<|endofprompt|>`.
public struct AddedToken: Sendable, Equatable {
    /// The text that stands for the token.
    public var content: String
    /// Its id.
    public var id: Int
    /// Whether decoding may leave it out (special tokens are control marks, not text).
    public var isSpecial: Bool
    /// Whether whitespace before the token is taken into it.
    public var stripsLeft: Bool
    /// Whether whitespace after the token is taken into it.
    public var stripsRight: Bool
    /// Whether it only matches with no word character on either side.
    public var isSingleWord: Bool

    /// An added token; the flags default as for a special token in Hugging Face `tokenizers`.
    public init(
        content: String, id: Int, isSpecial: Bool = true, stripsLeft: Bool = false, stripsRight: Bool = false,
        isSingleWord: Bool = false
    ) {
        self.content = content
        self.id = id
        self.isSpecial = isSpecial
        self.stripsLeft = stripsLeft
        self.stripsRight = stripsRight
        self.isSingleWord = isSingleWord
    }
}

/// Finds added tokens in UTF-8 text, leftmost first and longest among those starting there.
struct AddedTokenMatcher: Sendable {
    private let tokens: [AddedToken]
    /// Trie edges: key is node * 256 + byte, value the child node.
    private var edges: [Int32: Int32] = [:]
    /// The token index that ends at each node, or -1.
    private var terminals: [Int32] = [-1]
    private var startsToken = [Bool](repeating: false, count: 256)

    init(_ tokens: [AddedToken]) {
        self.tokens = tokens
        for (index, token) in tokens.enumerated() where !token.content.isEmpty {
            var node: Int32 = 0
            for byte in token.content.utf8 {
                let key = node * 256 + Int32(byte)
                if let child = edges[key] {
                    node = child
                } else {
                    terminals.append(-1)
                    let child = Int32(terminals.count - 1)
                    edges[key] = child
                    node = child
                }
            }
            // A later token with the same content replaces the earlier one.
            terminals[Int(node)] = Int32(index)
            startsToken[Int(token.content.utf8.first!)] = true
        }
    }

    var isEmpty: Bool { terminals.count == 1 }

    /// A part of the text: plain text to tokenize, or an added token's id.
    enum Segment {
        case text(Range<Int>)
        case token(Int)
    }

    /// The text `bytes` cut into plain-text ranges and added tokens, in order.
    func segments(of bytes: UnsafeBufferPointer<UInt8>) -> [Segment] {
        if isEmpty { return [.text(0..<bytes.count)] }
        var segments: [Segment] = []
        var textStart = 0
        var position = 0
        while position < bytes.count {
            guard startsToken[Int(bytes[position])], let (index, end) = longestMatch(in: bytes, at: position) else {
                position += 1
                continue
            }
            let token = tokens[index]
            if token.isSingleWord, !isWordBoundary(bytes, before: position, after: end) {
                position = end
                continue
            }
            var start = position
            var stop = end
            if token.stripsLeft {
                while start > textStart, let space = whitespaceEnding(in: bytes, at: start) { start = space }
            }
            if token.stripsRight {
                while stop < bytes.count, let next = whitespaceStarting(in: bytes, at: stop) { stop = next }
            }
            if start > textStart { segments.append(.text(textStart..<start)) }
            segments.append(.token(token.id))
            textStart = stop
            position = stop
        }
        if textStart < bytes.count { segments.append(.text(textStart..<bytes.count)) }
        return segments
    }

    private func longestMatch(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (Int, Int)? {
        var node: Int32 = 0
        var best: (Int, Int)? = nil
        var position = start
        while position < bytes.count, let child = edges[node * 256 + Int32(bytes[position])] {
            node = child
            position += 1
            let terminal = terminals[Int(node)]
            if terminal >= 0 { best = (Int(terminal), position) }
        }
        return best
    }

    private func isWordBoundary(_ bytes: UnsafeBufferPointer<UInt8>, before start: Int, after end: Int) -> Bool {
        func isWordCharacter(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar else { return false }
            let category = scalar.properties.generalCategory
            return scalar == "_" || scalar.properties.isAlphabetic || category == .decimalNumber
                || category == .letterNumber || category == .otherNumber
        }
        return !isWordCharacter(UTF8Scalars.scalar(endingAt: start, in: bytes))
            && !isWordCharacter(UTF8Scalars.scalar(startingAt: end, in: bytes))
    }

    private func whitespaceEnding(in bytes: UnsafeBufferPointer<UInt8>, at end: Int) -> Int? {
        guard let scalar = UTF8Scalars.scalar(endingAt: end, in: bytes), scalar.properties.isWhitespace else { return nil }
        return end - UTF8.width(scalar)
    }

    private func whitespaceStarting(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard let scalar = UTF8Scalars.scalar(startingAt: start, in: bytes), scalar.properties.isWhitespace else { return nil }
        return start + UTF8.width(scalar)
    }
}

/// Reading single scalars out of valid UTF-8.
enum UTF8Scalars {
    static func scalar(startingAt offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard offset < bytes.count else { return nil }
        var iterator = bytes[offset...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }

    static func scalar(endingAt offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard offset > 0 else { return nil }
        var start = offset - 1
        while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return scalar(startingAt: start, in: bytes)
    }
}
