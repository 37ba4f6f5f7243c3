/// Splits long text into pieces a synthesiser can take one at a time.
///
/// Pieces end at sentence ends; a sentence longer than `maxLength` is split at clause marks, and a
/// clause still too long is split between words (or between CJK characters, which have no spaces).
/// A single word longer than `maxLength` is cut between characters as a last resort, so no piece
/// exceeds `maxLength` whatever the text's shape (one huge token, no spaces, no punctuation) and a
/// model's memory stays bounded by the piece size. Only a single character longer than `maxLength`
/// (possible with a token measure) is a piece beyond it.
/// Whitespace after a break stays with the piece before it, so the pieces concatenate to the input.
///
/// Latin and CJK punctuation are both understood: `。！？` and `.!?…` end sentences, `，、；：` and
/// `,;:` end clauses. ASCII marks count only when followed by whitespace, the end of the text or a
/// CJK character, so `3.14`, `1,000` and `12:30` stay whole.
public struct SentenceChunker: Sendable {
    /// How the length of a piece is counted.
    public struct Measure: Sendable {
        /// The length of a piece, in whatever unit `maxLength` is given in.
        public let length: @Sendable (Substring) -> Int

        /// A measure from a closure, such as a token count.
        public init(_ length: @escaping @Sendable (Substring) -> Int) {
            self.length = length
        }

        /// Counts characters (grapheme clusters).
        public static let characters = Measure { $0.count }

        /// Counts Unicode scalars.
        public static let unicodeScalars = Measure { $0.unicodeScalars.count }

        /// Counts the tokens `tokenizer` makes of a piece (a piece it cannot encode counts as too long).
        public static func tokens(of tokenizer: some TextTokenizer) -> Measure {
            Measure { piece in (try? tokenizer.encode(String(piece)).count) ?? Int.max }
        }
    }

    /// The largest piece length, in `measure` units, wherever a break makes it possible.
    public let maxLength: Int
    /// How piece lengths are counted.
    public let measure: Measure
    /// Whether consecutive short sentences are packed into one piece while they fit.
    /// When false (the default) every sentence starts a new piece.
    public let packsSentences: Bool

    /// A chunker whose pieces are at most `maxLength` long by `measure`.
    public init(maxLength: Int, measure: Measure = .characters, packsSentences: Bool = false) {
        precondition(maxLength > 0, "SentenceChunker needs a positive maxLength, got \(maxLength)")
        self.maxLength = maxLength
        self.measure = measure
        self.packsSentences = packsSentences
    }

    /// The pieces of `text`, in order; their concatenation is `text`.
    public func split(_ text: String) -> [String] {
        ranges(in: text).map { String(text[$0]) }
    }

    /// The pieces of `text` as ranges: adjacent, in order, covering all of `text`.
    public func ranges(in text: String) -> [Range<String.Index>] {
        if text.isEmpty { return [] }
        var positions = Array(text.indices)
        positions.append(text.endIndex)
        let characters = Array(text)
        let breaks = BreakFinder(characters).levels
        let pieces = chunk(0..<characters.count, at: .sentence, breaks: breaks, positions: positions, text: text)
        return pieces.map { positions[$0.lowerBound]..<positions[$0.upperBound] }
    }

    // MARK: - Packing

    private func chunk(
        _ span: Range<Int>, at level: BreakLevel, breaks: [BreakLevel?],
        positions: [String.Index], text: String
    ) -> [Range<Int>] {
        func fits(_ range: Range<Int>) -> Bool {
            measure.length(text[positions[range.lowerBound]..<positions[range.upperBound]]) <= maxLength
        }
        func refine(_ range: Range<Int>) -> [Range<Int>] {
            if fits(range) { return [range] }
            guard let finer = level.finer else { return [range] }
            return chunk(range, at: finer, breaks: breaks, positions: positions, text: text)
        }

        var segments: [Range<Int>] = []
        var start = span.lowerBound
        for offset in span.dropFirst() {
            if level == .character || breaks[offset].map({ $0 <= level }) ?? false {
                segments.append(start..<offset)
                start = offset
            }
        }
        segments.append(start..<span.upperBound)

        if level == .sentence && !packsSentences {
            return segments.flatMap(refine)
        }

        var pieces: [Range<Int>] = []
        var current: Range<Int>? = nil
        for segment in segments {
            if let open = current {
                let joined = open.lowerBound..<segment.upperBound
                if fits(joined) {
                    current = joined
                    continue
                }
                pieces.append(open)
                current = nil
            }
            if fits(segment) {
                current = segment
            } else {
                pieces.append(contentsOf: refine(segment))
            }
        }
        if let open = current { pieces.append(open) }
        return pieces
    }
}

/// How strong a break between two characters is; smaller is stronger. `character` is every boundary,
/// the last resort inside a word too long for a piece.
enum BreakLevel: Int, Comparable, Sendable {
    case sentence, clause, word, character

    var finer: BreakLevel? { BreakLevel(rawValue: rawValue + 1) }

    static func < (lhs: BreakLevel, rhs: BreakLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Finds where pieces may start: `levels[i]` is the strongest break before character `i`.
///
/// With `textContinues`, the characters are the start of a text still arriving (`SentenceSegmenter`):
/// a mark at the very end is not yet known to stand alone (it may be `3.` of `3.14`), so it makes no
/// break, while whitespace after a mark, or a line break, already proves one, which is then kept at the
/// end too (`levels[characters.count]`).
struct BreakFinder {
    private(set) var levels: [BreakLevel?]
    private let characters: [Character]
    private let textContinues: Bool

    init(_ characters: [Character], textContinues: Bool = false) {
        self.characters = characters
        self.textContinues = textContinues
        self.levels = Array(repeating: nil, count: characters.count + 1)
        findPunctuationBreaks()
        findWhitespaceAndCJKBreaks()
        levels[0] = nil
        if !textContinues { levels[characters.count] = nil }
    }

    private mutating func mark(_ offset: Int, _ level: BreakLevel) {
        guard offset > 0, offset < characters.count || (textContinues && offset == characters.count) else { return }
        if let existing = levels[offset], existing <= level { return }
        levels[offset] = level
    }

    /// The offset just past the whitespace that starts at `offset`.
    private func skipWhitespace(from offset: Int) -> Int {
        var end = offset
        while end < characters.count, characters[end].isWhitespace { end += 1 }
        return end
    }

    private mutating func findPunctuationBreaks() {
        var i = 0
        while i < characters.count {
            let c = characters[i]
            let isSentenceEnd = Self.sentenceEnds.contains(c)
            guard isSentenceEnd || Self.clauseEnds.contains(c) else {
                i += 1
                continue
            }
            // A run such as `?!` or `...` or `。」` breaks once, after its closing quotes.
            var end = i + 1
            var sentence = isSentenceEnd
            var wide = Self.isWide(c)
            while end < characters.count {
                let next = characters[end]
                if Self.sentenceEnds.contains(next) {
                    sentence = true
                } else if !(Self.clauseEnds.contains(next) || Self.closers.contains(next)) {
                    break
                }
                wide = wide || Self.isWide(next)
                end += 1
            }
            let before = i > 0 ? characters[i - 1] : nil
            let after = end < characters.count ? characters[end] : nil
            // At the end of a text still arriving, what follows the mark is not known yet.
            if after == nil, textContinues, !wide {
                i = end
                continue
            }
            let standsAlone = wide || after == nil || after!.isWhitespace
                || (after.map(Self.isCJK) ?? false) || (before.map(Self.isCJK) ?? false)
            // Between digits a mark is part of a number (`３．１４`, `１，０００`), even a full-width one.
            let insideNumber = end == i + 1 && (before?.isNumber ?? false) && (after?.isNumber ?? false)
            if standsAlone, !insideNumber {
                let level: BreakLevel = sentence && !isAbbreviation(endingAt: i) ? .sentence : .clause
                mark(skipWhitespace(from: end), level)
            }
            i = end
        }
    }

    /// Whether the `.` at `offset` ends an abbreviation (`Dr.`, `e.g.`, an initial) rather than a sentence.
    private func isAbbreviation(endingAt offset: Int) -> Bool {
        guard characters[offset] == "." else { return false }
        var start = offset
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        let word = String(characters[start..<offset]).lowercased()
        if word.count == 1, word.first!.isLetter { return true }
        return Self.abbreviations.contains(word)
    }

    private mutating func findWhitespaceAndCJKBreaks() {
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c.isWhitespace {
                let end = skipWhitespace(from: i)
                let paragraph = characters[i..<end].contains { $0.isNewline }
                mark(end, paragraph ? .sentence : .word)
                i = end
                continue
            }
            // CJK text has no spaces: any character boundary next to a CJK character may break,
            // except in front of punctuation, which stays with what it closes.
            if i + 1 < characters.count {
                let next = characters[i + 1]
                let cjkPair = Self.isCJK(c) || Self.isCJK(next)
                if cjkPair, !next.isWhitespace, !Self.isPunctuation(next), !Self.openers.contains(c) {
                    mark(i + 1, .word)
                }
            }
            i += 1
        }
    }

    // MARK: - Character classes

    static let sentenceEnds: Set<Character> = [".", "!", "?", "…", "。", "！", "？", "．", "‼", "⁇", "⁈", "⁉"]
    static let clauseEnds: Set<Character> = [",", ";", ":", "，", "、", "；", "：", "､"]
    static let closers: Set<Character> = [
        "\"", "'", ")", "]", "}", "”", "’", "»", "›", "」", "』", "）", "》", "〉", "】", "〕", "〗", "〙", "］", "｝",
    ]
    static let openers: Set<Character> = [
        "(", "[", "{", "“", "‘", "«", "‹", "「", "『", "（", "《", "〈", "【", "〔", "〖", "〘", "［", "｛",
    ]
    static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no", "fig", "approx",
    ]

    static func isPunctuation(_ c: Character) -> Bool {
        sentenceEnds.contains(c) || clauseEnds.contains(c) || closers.contains(c)
    }

    /// Full-width punctuation, which never needs a following space to break.
    static func isWide(_ c: Character) -> Bool {
        guard let scalar = c.unicodeScalars.first?.value else { return false }
        return (0x3000...0x303F).contains(scalar) || (0xFF00...0xFF65).contains(scalar)
    }

    /// Han ideographs and kana: scripts written without spaces between words.
    static func isCJK(_ c: Character) -> Bool {
        guard let scalar = c.unicodeScalars.first?.value else { return false }
        switch scalar {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
             0xFF66...0xFF9F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }
}
