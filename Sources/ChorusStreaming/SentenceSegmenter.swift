/// Cuts text that arrives piece by piece into sentences, each as soon as it is known to be complete.
///
/// A sentence ends at `.`, `!`, `?` or `…` followed by whitespace (so "3.14" and "e.g.x" stay whole),
/// after any closing quotes or brackets; at `。`, `！`, `？` at once; and at a line break. A
/// sentence that grows past `maximumLength` characters is cut at its last clause mark or space.
/// With `firstPiece` set, the first piece is cut short when the first sentence is long (see `FirstPiece`).
public struct SentenceSegmenter: Sendable {
    /// The longest piece handed on before a sentence ends, in characters.
    public var maximumLength: Int
    /// How a long first sentence is cut short; nil keeps it whole.
    public var firstPiece: FirstPiece?
    /// The text not handed on yet: a slice, so handing a sentence on drops it without copying the rest.
    private var buffer: Substring = ""
    private var handedOn = false

    /// Where the first piece of a stream ends when its sentence is long, so that an engine slower
    /// than speech can start speaking sooner; every later piece is a whole sentence.
    ///
    /// The first sentence is cut after a clause mark (`,` `;` `:` followed by a space, or `、` `，` `；`)
    /// that ends word `minimumWords` to `maximumWords`. A sentence with no such mark and at least
    /// `maximumWords + minimumWords` words is cut between words instead: before the last joining word
    /// ("and", "of", "to", ...) that has `minimumWords` to `maximumWords` words before it, so that the
    /// break falls where a speaker may pause, or else after word `maximumWords`.
    public struct FirstPiece: Sendable, Equatable {
        /// The fewest words in the first piece.
        public var minimumWords: Int
        /// The most words in the first piece.
        public var maximumWords: Int

        public init(minimumWords: Int = 4, maximumWords: Int = 8) {
            precondition(minimumWords > 0 && maximumWords >= minimumWords, "0 < minimumWords <= maximumWords")
            self.minimumWords = minimumWords
            self.maximumWords = maximumWords
        }

        /// Words a phrase often starts with; a break before one sounds like a pause, not a stumble.
        static let joiningWords: Set<String> = [
            "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while", "when", "where",
            "which", "who", "whose", "that", "if", "unless", "until", "after", "before", "since", "as",
            "of", "in", "on", "at", "to", "for", "with", "from", "by", "about", "into", "over", "under",
            "through", "between", "during", "without", "across", "along", "around",
        ]
    }

    public init(maximumLength: Int = 300, firstPiece: FirstPiece? = nil) {
        precondition(maximumLength > 0, "a sentence has at least one character")
        self.maximumLength = maximumLength
        self.firstPiece = firstPiece
    }

    /// Adds `text`; returns the sentences it completed, trimmed, in order.
    ///
    /// The work is linear in the text, however long one piece is: a sentence handed on is dropped from
    /// the slice without copying what follows, and once the buffer is known to hold no sentence end, the
    /// cuts of an overlong run do not look for one again (a part of text with no sentence end has none).
    public mutating func append(_ text: String) -> [String] {
        buffer.append(contentsOf: text)
        var sentences: [String] = []
        var noSentenceEnd = false
        while true {
            var end = firstPieceCut()
            if end == nil, !noSentenceEnd {
                end = sentenceEnd()
                noSentenceEnd = end == nil
            }
            guard let end = end ?? overlongCut() else { break }
            let sentence = buffer[..<end].trimmingWhitespace()
            if !sentence.isEmpty {
                sentences.append(sentence)
                handedOn = true
            }
            buffer = buffer[end...]
        }
        // What is left is short (at most an overlong cut's worth past the last sentence): copy it out so
        // the text already handed on is freed.
        buffer = Substring(String(buffer))
        return sentences
    }

    /// Ends the text: returns whatever is left as the last sentence, if it has any words.
    public mutating func finish() -> [String] {
        defer { buffer = "" }
        let rest = buffer.trimmingWhitespace()
        if !rest.isEmpty { handedOn = true }
        return rest.isEmpty ? [] : [rest]
    }

    private static let terminators: Set<Character> = [".", "!", "?", "…"]
    private static let fullWidthTerminators: Set<Character> = ["。", "！", "？"]
    private static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "»", "」", "』"]
    private static let clauseMarks: Set<Character> = [",", ";", ":", "、", "，", "；"]
    private static let fullWidthClauseMarks: Set<Character> = ["、", "，", "；"]

    /// Where the first piece ends when `firstPiece` cuts it short; nil when it does not, or not yet.
    ///
    /// Only the first sentence is looked at, as far as it has arrived; the cut depends only on words
    /// that are complete, so text split anywhere is cut at the same place.
    private func firstPieceCut() -> String.Index? {
        guard let rule = firstPiece, !handedOn else { return nil }
        let end = sentenceEnd() ?? buffer.endIndex
        var wordStarts: [String.Index] = []
        var inWord = false
        var index = buffer.startIndex
        while index < end {
            let character = buffer[index]
            let next = buffer.index(after: index)
            if character.isWhitespace {
                inWord = false
            } else {
                if !inWord { wordStarts.append(index) }
                inWord = true
                if Self.clauseMarks.contains(character) {
                    // Marks without spaces (full-width) end a clause at once but do not separate words,
                    // so there the characters before the mark are counted instead.
                    let fullWidth = Self.fullWidthClauseMarks.contains(character)
                    let closes = fullWidth || (next < end && buffer[next].isWhitespace)
                    let words = fullWidth ? buffer.distance(from: buffer.startIndex, to: index) / 2 : wordStarts.count
                    if closes, (rule.minimumWords...rule.maximumWords).contains(words) { return next }
                }
            }
            index = next
        }
        guard wordStarts.count >= rule.maximumWords + rule.minimumWords else { return nil }
        let joining = (rule.minimumWords...rule.maximumWords).last { position in
            let start = wordStarts[position]
            let word = buffer[start...].prefix { !$0.isWhitespace }
            return FirstPiece.joiningWords.contains(word.lowercased())
        }
        return wordStarts[joining ?? rule.maximumWords]
    }

    /// The index just past the first complete sentence in the buffer.
    private func sentenceEnd() -> String.Index? {
        var index = buffer.startIndex
        while index < buffer.endIndex {
            let character = buffer[index]
            let next = buffer.index(after: index)
            if character.isNewline || Self.fullWidthTerminators.contains(character) { return next }
            if Self.terminators.contains(character) {
                var end = next
                while end < buffer.endIndex, Self.terminators.contains(buffer[end]) || Self.closers.contains(buffer[end]) {
                    end = buffer.index(after: end)
                }
                // Only whitespace after the mark proves the sentence ended; otherwise wait for more text.
                if end < buffer.endIndex, buffer[end].isWhitespace { return end }
                index = end
                continue
            }
            index = next
        }
        return nil
    }

    /// Where to cut a buffer that grew past `maximumLength` without a sentence end.
    private func overlongCut() -> String.Index? {
        guard let limit = buffer.index(buffer.startIndex, offsetBy: maximumLength, limitedBy: buffer.endIndex),
              limit < buffer.endIndex else { return nil }
        let head = buffer[..<limit]
        if let mark = head.lastIndex(where: { Self.clauseMarks.contains($0) }) { return buffer.index(after: mark) }
        if let space = head.lastIndex(where: \.isWhitespace), space > buffer.startIndex { return space }
        return limit
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
