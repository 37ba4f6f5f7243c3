import ChorusText

/// Upstream's `punc_norm` (`tts_turbo.py`), step for step in its order, applied to each piece of text before
/// it is tokenised: empty text becomes a stock sentence; a lower-case first character is upper-cased; runs of
/// whitespace become one space (Python's `" ".join(text.split())`, which also drops leading and trailing
/// whitespace); uncommon punctuation is replaced; trailing spaces go; a full stop is added unless the text
/// ends in `. ! ? - ,`.
public enum PunctuationNormalizer {
    /// What upstream says for empty text.
    public static let emptyText = "You need to add some text for me to talk."

    /// Replacements in upstream's order (each over the whole text before the next).
    static let replacements: [(String, String)] = [
        ("\u{2026}", ", "), (":", ","), ("\u{2014}", "-"), ("\u{2013}", "-"), (" ,", ","),
        ("\u{201C}", "\""), ("\u{201D}", "\""), ("\u{2018}", "'"), ("\u{2019}", "'"),
    ]

    static let sentenceEnders: [Unicode.Scalar] = [".", "!", "?", "-", ","]

    /// `text` as upstream's `punc_norm` returns it.
    public static func normalize(_ text: String) -> String {
        if text.unicodeScalars.isEmpty { return emptyText }
        var scalars = Array(text.unicodeScalars)
        // Python's str.islower on one code point: a cased lower-case letter; str.upper may give several.
        if let first = scalars.first, first.properties.isLowercase {
            scalars.replaceSubrange(0..<1, with: first.properties.uppercaseMapping.unicodeScalars)
        }
        // " ".join(text.split()): Python's whitespace, runs collapsed, ends dropped.
        var words: [String.UnicodeScalarView] = []
        var current = String.UnicodeScalarView()
        for scalar in scalars {
            if PythonStringRules.isWhitespace(scalar) {
                if !current.isEmpty { words.append(current); current = String.UnicodeScalarView() }
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { words.append(current) }
        var result = words.map { String($0) }.joined(separator: " ")
        for (old, new) in replacements {
            result = replacingAll(old, with: new, in: result)
        }
        // text.rstrip(" "): spaces only.
        while result.unicodeScalars.last == " " { result.unicodeScalars.removeLast() }
        if let last = result.unicodeScalars.last, sentenceEnders.contains(last) { return result }
        return result + "."
    }

    /// Python's str.replace: non-overlapping matches of code points, left to right (Swift's own
    /// replacement would compare grapheme clusters, and " ," would not match before a combining mark).
    static func replacingAll(_ old: String, with new: String, in text: String) -> String {
        let pattern = Array(old.unicodeScalars)
        let source = Array(text.unicodeScalars)
        guard !pattern.isEmpty, source.count >= pattern.count else { return text }
        var output = String.UnicodeScalarView()
        var index = 0
        while index < source.count {
            if index + pattern.count <= source.count, source[index] == pattern[0],
               Array(source[index..<(index + pattern.count)]) == pattern {
                output.append(contentsOf: new.unicodeScalars)
                index += pattern.count
            } else {
                output.append(source[index])
                index += 1
            }
        }
        return String(output)
    }
}
