/// How a text heard as it is made is cut into pieces: a small first piece, so the first audio comes
/// soon, then pieces that grow, each at most `growth` times the one before, up to `maxLength`.
///
/// The first piece is the first sentence, or, when that is longer than `firstLength`, as many of its
/// first clauses as fit in `firstLength` (its first words when a clause alone is longer). Each later
/// piece is whole sentences packed while they fit its length (a sentence longer than `maxLength` is cut
/// at clauses, then words, as `SentenceChunker` does). An engine that makes one piece after another,
/// at `r` seconds of work per second of audio, has each piece ready before the one before it has
/// played out while `r * growth <= 1`: the ramp is what lets a slow engine start early and never fall
/// behind. The pieces concatenate to the text.
public struct PieceRamp: Sendable, Equatable {
    /// The longest first piece, in characters, when the first sentence is longer.
    public var firstLength: Int
    /// How much longer than the piece before it a piece may be.
    public var growth: Double
    /// The longest piece, in characters (the engine's own limit).
    public var maxLength: Int

    public init(firstLength: Int, growth: Double = 1.5, maxLength: Int) {
        precondition(firstLength > 0 && maxLength >= firstLength && growth >= 1,
                     "0 < firstLength <= maxLength and growth >= 1")
        self.firstLength = firstLength
        self.growth = growth
        self.maxLength = maxLength
    }

    /// Whether `piece` ends a sentence (a sentence mark, then closing quotes or brackets and
    /// whitespace), rather than a clause or a word: where an engine's pause between sentences belongs.
    public static func endsSentence(_ piece: String) -> Bool {
        guard let last = piece.reversed().first(where: { !$0.isWhitespace && !BreakFinder.closers.contains($0) }) else {
            return false
        }
        return BreakFinder.sentenceEnds.contains(last) || piece.reversed().prefix(while: \.isWhitespace).contains(where: \.isNewline)
    }

    /// The pieces of `text`, in order; their concatenation is `text`.
    public func split(_ text: String) -> [String] {
        ranges(in: text).map { String(text[$0]) }
    }

    /// The pieces of `text` as adjacent ranges covering all of it.
    public func ranges(in text: String) -> [Range<String.Index>] {
        var sentences = SentenceChunker(maxLength: maxLength).ranges(in: text)
        guard let first = sentences.first else { return [] }
        var pieces: [Range<String.Index>] = []
        let sentence = String(text[first])
        if sentence.count > firstLength,
           let head = SentenceChunker(maxLength: firstLength, packsSentences: true).ranges(in: sentence).first {
            // The chunker cut a copy; the head's count of characters ends it in `text` too.
            let end = text.index(first.lowerBound, offsetBy: sentence[head].count)
            pieces.append(first.lowerBound..<end)
            sentences[0] = end..<first.upperBound
            if sentences[0].isEmpty { sentences.removeFirst() }
        } else {
            pieces.append(first)
            sentences.removeFirst()
        }
        var previous = text[pieces[0]].count
        var index = 0
        while index < sentences.count {
            let budget = min(maxLength, max(previous, Int((Double(previous) * growth).rounded(.up))))
            var piece = sentences[index]
            var length = text[piece].count
            index += 1
            while index < sentences.count {
                let next = text[sentences[index]].count
                guard length + next <= budget else { break }
                piece = piece.lowerBound..<sentences[index].upperBound
                length += next
                index += 1
            }
            pieces.append(piece)
            previous = length
        }
        return pieces
    }
}
