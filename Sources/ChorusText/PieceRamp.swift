/// How a text heard as it is made is cut into pieces: a small first piece, so the first audio comes
/// soon, then pieces that grow, each at most `growth` times all the text before it, up to `maxLength`.
///
/// The first piece is the first sentence or, when that is longer than `firstLength`, its first clauses
/// up to `firstLength` (cut instead before a joining word such as "and", "of", "for" when no clause
/// ends in time, or between words); a sentence whose rest would be under a fifth of `firstLength` is
/// not cut. Each later piece is whole sentences packed while they fit; a sentence longer than the
/// piece may be is cut the same way, its rest starting the next piece, so no piece outgrows the bound
/// below (a whole second sentence after a short first piece kept a listener waiting 1.5 s). An engine that makes one
/// piece after another at `r` seconds of work per second of audio has piece `k` ready before the
/// audio before it has played out while `r * d_k <= r * d_0 + (1 - r) * (d_0 + ... + d_k-1)`; with
/// `d_k <= growth * (d_0 + ... + d_k-1)` that holds for any `r <= 1 / (1 + growth)`, more with the
/// first piece's margin. The pieces concatenate to the text.
public struct PieceRamp: Sendable, Equatable {
    /// The longest first piece, in characters, when the first sentence is longer.
    public var firstLength: Int
    /// How much longer than all the text before it a piece may be.
    public var growth: Double
    /// The longest piece, in characters (the engine's own limit).
    public var maxLength: Int

    public init(firstLength: Int, growth: Double = 1, maxLength: Int) {
        precondition(firstLength > 0 && maxLength >= firstLength && growth > 0,
                     "0 < firstLength <= maxLength and growth > 0")
        self.firstLength = firstLength
        self.growth = growth
        self.maxLength = maxLength
    }

    /// Words a phrase often starts with; a break before one sounds like a pause, not a stumble.
    static let joiningWords: Set<String> = [
        "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while", "when", "where",
        "which", "who", "whose", "that", "if", "unless", "until", "after", "before", "since", "as",
        "of", "in", "on", "at", "to", "for", "with", "from", "by", "about", "into", "over", "under",
        "through", "between", "during", "without", "across", "along", "around",
    ]

    /// The pieces an engine speaks `text` in: this ramp's when it is heard as it is made, else whole
    /// sentences packed up to `maxLength`, the fewest calls, which is fastest overall.
    public func pieces(of text: String, heardAsMade: Bool) -> [String] {
        heardAsMade ? split(text) : SentenceChunker(maxLength: maxLength, packsSentences: true).split(text)
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
        if let cut = firstCut(in: String(text[first])) {
            let end = text.index(first.lowerBound, offsetBy: cut)
            pieces.append(first.lowerBound..<end)
            sentences[0] = end..<first.upperBound
        } else {
            pieces.append(first)
            sentences.removeFirst()
        }
        var spoken = text[pieces[0]].count
        var index = 0
        while index < sentences.count {
            let budget = min(maxLength, max(firstLength, Int((Double(spoken) * growth).rounded(.down))))
            var piece = sentences[index]
            var length = text[piece].count
            // A sentence longer than the piece may be is cut as a long first sentence is, the rest left
            // for the next piece.
            if length > budget, let cut = cut(String(text[piece]), within: budget) {
                let end = text.index(piece.lowerBound, offsetBy: cut)
                pieces.append(piece.lowerBound..<end)
                spoken += cut
                sentences[index] = end..<piece.upperBound
                continue
            }
            index += 1
            while index < sentences.count {
                let next = text[sentences[index]].count
                guard length + next <= budget else { break }
                piece = piece.lowerBound..<sentences[index].upperBound
                length += next
                index += 1
            }
            pieces.append(piece)
            spoken += length
        }
        return pieces
    }

    /// Where a first sentence longer than `firstLength` is cut, in characters; nil to speak it whole.
    func firstCut(in sentence: String) -> Int? {
        cut(sentence, within: firstLength)
    }

    /// Where a sentence longer than `limit` characters is cut (see `firstCut(in:)`); nil to speak it whole.
    func cut(_ sentence: String, within limit: Int) -> Int? {
        let characters = Array(sentence)
        guard characters.count > limit,
              let head = SentenceChunker(maxLength: limit, packsSentences: true).ranges(in: sentence).first else {
            return nil
        }
        var cut = sentence[head].count
        let last = characters[..<cut].last { !$0.isWhitespace }
        if !(last.map(BreakFinder.clauseEnds.contains) ?? false) {
            // No clause ends in time: before the last joining word with three words or more before it.
            var wordStarts: [Int] = []
            for offset in 0..<cut where !characters[offset].isWhitespace && (offset == 0 || characters[offset - 1].isWhitespace) {
                wordStarts.append(offset)
            }
            let joining = wordStarts.dropFirst(3).last { start in
                let word = characters[start...].prefix { $0.isLetter }
                return Self.joiningWords.contains(String(word).lowercased())
            }
            if let joining { cut = joining }
        }
        return characters.count - cut < max(1, limit / 5) ? nil : cut
    }

    /// Whether `piece` ends a sentence (a sentence mark, then closing quotes or brackets and
    /// whitespace), rather than a clause or a word: where an engine's pause between sentences belongs.
    public static func endsSentence(_ piece: String) -> Bool {
        guard let last = piece.reversed().first(where: { !$0.isWhitespace && !BreakFinder.closers.contains($0) }) else {
            return false
        }
        return BreakFinder.sentenceEnds.contains(last) || piece.reversed().prefix(while: \.isWhitespace).contains(where: \.isNewline)
    }
}
