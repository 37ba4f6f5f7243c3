/// Cuts text that arrives piece by piece (an LLM's tokens, a WebSocket's messages) into sentences, each
/// handed on as soon as it is known to be complete, by the same rules as `SentenceChunker` and
/// `PieceRamp`: the one sentence splitter of Chorus, fed a little at a time.
///
/// A sentence ends where `SentenceChunker` would end it: at `.`, `!`, `?`, `…` (and their full-width
/// forms) once whitespace, a CJK character or the end of the text follows, after any closing quotes or
/// brackets, but not after an abbreviation or an initial (`Dr.`, `e.g.`, `J.`) nor inside a number
/// (`3.14`); at a full-width mark at once; at a line break. Since a mark at the end of what has arrived
/// may still be `3.` of `3.14`, it waits for the next character. A sentence that grows past
/// `maximumLength` characters is cut at its last clause mark, else between words, else between
/// characters, as `SentenceChunker` cuts a sentence too long for a piece. With `firstPieceLength`, a
/// long first sentence is cut where `PieceRamp` cuts it (at a clause, else before a joining word), as
/// soon as the cut is known.
///
/// The work is linear in the text: each `append` looks once at what it is given and at what is held
/// from before, at most `maximumLength` characters, and drops every sentence it hands on.
public struct SentenceSegmenter: Sendable {
    /// The longest piece handed on before a sentence ends, in characters.
    public var maximumLength: Int
    /// The longest first piece when the first sentence is longer, in characters; nil keeps it whole.
    public var firstPieceLength: Int?
    /// The text not handed on yet.
    private var held: [Character] = []
    private var handedOn = false

    public init(maximumLength: Int = 300, firstPieceLength: Int? = nil) {
        precondition(maximumLength > 0, "a sentence has at least one character")
        precondition(firstPieceLength.map { $0 > 0 } ?? true, "a first piece has at least one character")
        self.maximumLength = maximumLength
        self.firstPieceLength = firstPieceLength
    }

    /// Adds `text`; returns the sentences it completed, trimmed, in order.
    public mutating func append(_ text: String) -> [String] {
        held.append(contentsOf: text)
        let levels = BreakFinder(held, textContinues: true).levels
        var pieces: [String] = []
        var start = 0
        func handOn(upTo end: Int) {
            let piece = Self.trimmed(held[start..<end])
            if !piece.isEmpty {
                pieces.append(piece)
                handedOn = true
            }
            start = end
        }
        var offset = 1
        while offset <= held.count {
            if levels[offset] == .sentence {
                if let cut = firstCut(start..<offset, sentenceEnds: true) { handOn(upTo: cut) }
                handOn(upTo: offset)
            } else if let cut = firstCut(start..<offset, sentenceEnds: false) {
                handOn(upTo: cut)
            } else if offset - start > maximumLength {
                handOn(upTo: overlongCut(from: start, levels: levels))
                offset = start
            }
            offset += 1
        }
        held.removeFirst(start)
        return pieces
    }

    /// Ends the text: returns whatever is left as the last sentences (its first cut short, if it is the
    /// first and long), if it has any words.
    public mutating func finish() -> [String] {
        defer { held = [] }
        var pieces: [String] = []
        var start = 0
        if let cut = firstCut(0..<held.count, sentenceEnds: true) {
            pieces.append(Self.trimmed(held[..<cut]))
            start = cut
        }
        pieces.append(Self.trimmed(held[start...]))
        pieces.removeAll(where: \.isEmpty)
        if !pieces.isEmpty { handedOn = true }
        return pieces
    }

    /// Where the first sentence, held at `range`, is cut short; nil when it is not, or not yet. A sentence
    /// still arriving is cut once the cut is certain, when just over a fifth more than the first piece has
    /// arrived: `PieceRamp` leaves a sentence whole when its rest would be shorter than that, and the cut
    /// depends on no character after it.
    private func firstCut(_ range: Range<Int>, sentenceEnds: Bool) -> Int? {
        guard let length = firstPieceLength, !handedOn, range.count > length else { return nil }
        if !sentenceEnds, range.count != length + max(1, length / 5) + 1 { return nil }
        let ramp = PieceRamp(firstLength: length, maxLength: max(length, maximumLength))
        return ramp.firstCut(in: String(held[range])).map { range.lowerBound + $0 }
    }

    /// Where a sentence held from `start` and longer than `maximumLength` is cut: after its last clause
    /// mark within the limit, else between its last two words, else at the limit.
    private func overlongCut(from start: Int, levels: [BreakLevel?]) -> Int {
        let window = (start + 1)...(start + maximumLength)
        for level in [BreakLevel.clause, .word] {
            if let cut = window.last(where: { levels[$0].map { $0 <= level } ?? false }) { return cut }
        }
        return start + maximumLength
    }

    private static func trimmed(_ characters: ArraySlice<Character>) -> String {
        guard let first = characters.firstIndex(where: { !$0.isWhitespace }),
              let last = characters.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(characters[first...last])
    }
}
