import Foundation

/// wetext's text normalisation (written numbers, dates, money, ... spelled out), with no Python: its
/// OpenFst grammars run through `WeightedFST`.
///
/// Follows `wetext.Normalizer().normalize(text)` of wetext 0.1.8 with its defaults (language "auto",
/// operator "tn", no erhua removal, no pre- or post-processing graphs, one best path):
/// strip; pick the language (Chinese when the text holds a CJK ideograph U+4E00-U+9FFF or is all
/// digits, English otherwise); for Chinese, normalise only when the text holds a decimal digit;
/// then tagger -> token reordering (`WeTextTokenParser`) -> verbalizer, each output stripped.
public struct WeTextNormalizer: Sendable {
    /// The language whose grammars a text goes through.
    public enum Language: String, Sendable {
        case chinese = "zh"
        case english = "en"
    }

    /// A tagger and verbalizer pair and the field orders between them.
    struct Grammar: Sendable {
        let tagger: WeightedFST
        let verbalizer: WeightedFST
        let parser: WeTextTokenParser
    }

    let chinese: Grammar
    let english: Grammar

    /// The files read from the folder, relative to it (the layout of the `fsts` folder of the wetext wheel).
    public static let requiredFiles = ["zh/tn/tagger.fst", "zh/tn/verbalizer.fst", "en/tn/tagger.fst", "en/tn/verbalizer.fst"]

    /// Loads the grammars from `folder`, a copy of the wetext wheel's `fsts` folder.
    public init(folder: URL) throws {
        for file in Self.requiredFiles where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
            throw Self.manifest.missing(folder.appendingPathComponent(file).path)
        }
        func load(_ file: String) throws -> WeightedFST {
            try WeightedFST(contentsOf: folder.appendingPathComponent(file))
        }
        chinese = Grammar(tagger: try load("zh/tn/tagger.fst"), verbalizer: try load("zh/tn/verbalizer.fst"),
                          parser: .chinese)
        english = Grammar(tagger: try load("en/tn/tagger.fst"), verbalizer: try load("en/tn/verbalizer.fst"),
                          parser: .english)
    }

    /// wetext's `get_lang`: Chinese when any code point is in U+4E00-U+9FFF or the text is all digits.
    public static func language(of text: String) -> Language {
        text.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) } || PythonStringRules.isDigit(text)
            ? .chinese : .english
    }

    /// wetext's `should_normalize` for "tn": Chinese text only when it holds a decimal digit, English
    /// text whenever it is not empty.
    static func shouldNormalize(_ text: String, language: Language) -> Bool {
        switch language {
        case .chinese: return text.unicodeScalars.contains(where: PythonStringRules.isDecimalDigit)
        case .english: return !text.isEmpty
        }
    }

    /// UTF-8 bytes one grammar search reads at most. A search holds every composed state it reaches, about
    /// 180 per input byte on texts of numbers (and the verbalizer's input is nine times the text), so a
    /// longer text is normalised in pieces of this size: no search then passes about 80,000 states (5 MB),
    /// far under `WeightedFST.defaultMaximumSearchStates`, whatever the text's length, and the time grows with
    /// the length, not faster.
    public static let pieceBytes = 256

    /// `text` normalised. Text longer than `pieceBytes` goes through the grammars in pieces cut at a
    /// sentence end where one is near, else at a space, else between two characters that are not both
    /// digits (`pieces(of:maximumBytes:)`), all in the language of the whole text; shorter text in one go,
    /// exactly as wetext does.
    public func normalize(_ text: String) throws -> String {
        var largestSearch = 0
        return try normalize(text, largestSearch: &largestSearch)
    }

    /// `normalize(_:)`, setting `largestSearch` to the most composed states one grammar search made: what
    /// bounds the call's memory, for tests.
    package func normalize(_ text: String, largestSearch: inout Int) throws -> String {
        func best(_ fst: WeightedFST, _ text: String) throws -> String {
            let (bytes, states) = try fst.search(Array(text.utf8))
            largestSearch = max(largestSearch, states)
            return PythonStringRules.strip(String(decoding: bytes, as: UTF8.self))
        }
        let prepared = PythonStringRules.strip(text)
        let language = Self.language(of: prepared)
        guard Self.shouldNormalize(prepared, language: language) else { return prepared }
        let grammar = language == .chinese ? chinese : english
        var output = ""
        for (piece, joiner) in Self.pieces(of: prepared, maximumBytes: Self.pieceBytes) {
            let reordered = try grammar.parser.reorder(try best(grammar.tagger, piece))
            let normalized = try best(grammar.verbalizer, reordered)
            if !normalized.isEmpty { output += normalized + joiner }
        }
        return PythonStringRules.strip(output)
    }

    /// `text` cut into pieces of at most `maximumBytes` UTF-8 bytes, each with what joins it to the next
    /// (" " where whitespace was cut, "" otherwise). A cut goes at the last place in reach that is, in
    /// order of preference: a space after a sentence mark; a space; after a sentence or clause mark (for
    /// Chinese, which has no spaces); between two characters that are not both digits; anywhere.
    static func pieces(of text: String, maximumBytes: Int) -> [(piece: String, joiner: String)] {
        let scalars = Array(text.unicodeScalars)
        let marks: Set<Unicode.Scalar> = [".", "!", "?", ";", "。", "！", "？", "；"]
        let clauseMarks = marks.union(["，", "、", ",", "：", ":"])
        func isSpace(_ index: Int) -> Bool { scalars[index].properties.isWhitespace }
        func isDigit(_ index: Int) -> Bool { PythonStringRules.isDigit(scalars[index]) }
        var pieces: [(piece: String, joiner: String)] = []
        var start = 0
        while start < scalars.count {
            var end = start, bytes = 0
            while end < scalars.count, bytes + UTF8.width(scalars[end]) <= maximumBytes || end == start {
                bytes += UTF8.width(scalars[end])
                end += 1
            }
            guard end < scalars.count else {
                pieces.append((String(String.UnicodeScalarView(scalars[start...])), ""))
                break
            }
            // A cut before `scalars[cut]`, the piece being start..<cut.
            let reach = (start + 1)...end
            let cut = reach.last { isSpace($0) && marks.contains(scalars[$0 - 1]) }
                ?? reach.last { isSpace($0) }
                ?? reach.last { clauseMarks.contains(scalars[$0 - 1]) }
                ?? reach.last { !(isDigit($0 - 1) && isDigit($0)) }
                ?? end
            var next = cut
            while next < scalars.count, isSpace(next) { next += 1 }
            pieces.append((String(String.UnicodeScalarView(scalars[start..<cut])), next > cut ? " " : ""))
            start = next
        }
        return pieces
    }

    /// The tagger's output for `text` before reordering, for inspection and tests.
    public func tag(_ text: String, language: Language) throws -> String {
        let grammar = language == .chinese ? chinese : english
        return PythonStringRules.strip(try grammar.tagger.bestOutput(for: PythonStringRules.strip(text)))
    }
}
