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

    /// `text` normalised.
    public func normalize(_ text: String) throws -> String {
        let prepared = PythonStringRules.strip(text)
        let language = Self.language(of: prepared)
        guard Self.shouldNormalize(prepared, language: language) else { return prepared }
        let grammar = language == .chinese ? chinese : english
        let tagged = PythonStringRules.strip(try grammar.tagger.bestOutput(for: prepared))
        let reordered = try grammar.parser.reorder(tagged)
        return PythonStringRules.strip(try grammar.verbalizer.bestOutput(for: reordered))
    }

    /// The tagger's output for `text` before reordering, for inspection and tests.
    public func tag(_ text: String, language: Language) throws -> String {
        let grammar = language == .chinese ? chinese : english
        return PythonStringRules.strip(try grammar.tagger.bestOutput(for: PythonStringRules.strip(text)))
    }
}
