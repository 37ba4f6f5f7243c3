/// Cuts text that arrives piece by piece into sentences, each as soon as it is known to be complete.
///
/// A sentence ends at `.`, `!`, `?` or `…` followed by whitespace (so "3.14" and "e.g.x" stay whole),
/// after any closing quotes or brackets; at `。`, `！`, `？` at once; and at a line break. A
/// sentence that grows past `maximumLength` characters is cut at its last clause mark or space.
public struct SentenceSegmenter: Sendable {
    /// The longest piece handed on before a sentence ends, in characters.
    public var maximumLength: Int
    private var buffer = ""

    public init(maximumLength: Int = 300) {
        precondition(maximumLength > 0, "a sentence has at least one character")
        self.maximumLength = maximumLength
    }

    /// Adds `text`; returns the sentences it completed, trimmed, in order.
    public mutating func append(_ text: String) -> [String] {
        buffer += text
        var sentences: [String] = []
        while let end = sentenceEnd() ?? overlongCut() {
            let sentence = buffer[..<end].trimmingWhitespace()
            if !sentence.isEmpty { sentences.append(sentence) }
            buffer = String(buffer[end...])
        }
        return sentences
    }

    /// Ends the text: returns whatever is left as the last sentence, if it has any words.
    public mutating func finish() -> [String] {
        defer { buffer = "" }
        let rest = buffer.trimmingWhitespace()
        return rest.isEmpty ? [] : [rest]
    }

    private static let terminators: Set<Character> = [".", "!", "?", "…"]
    private static let fullWidthTerminators: Set<Character> = ["。", "！", "？"]
    private static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "»", "」", "』"]
    private static let clauseMarks: Set<Character> = [",", ";", ":", "、", "，", "；"]

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
        guard buffer.count > maximumLength else { return nil }
        let limit = buffer.index(buffer.startIndex, offsetBy: maximumLength)
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
