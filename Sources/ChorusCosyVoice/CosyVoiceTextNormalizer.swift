import ChorusText

/// Upstream CosyVoice's text front end: `CosyVoiceFrontEnd.text_normalize` of FunAudioLLM/CosyVoice
/// (`cosyvoice/cli/frontend.py`) with its helpers from `cosyvoice/utils/frontend_utils.py`, on the path
/// taken when ttsfrd is absent. Text is handled code point by code point, as Python does.
///
/// The steps, in upstream's order:
/// 1. Text holding both `<|` and `|>` (markup such as `<|endofprompt|>`), and empty text, pass unchanged
///    and whole. So the prompt text of CosyVoice 3, which always carries `<|endofprompt|>`, is never
///    normalised.
/// 2. Strip. Text with a CJK ideograph (U+4E00-U+9FFF) is Chinese: wetext normalises it, then line
///    breaks go, spaces not between two ASCII characters go (`replace_blank`), ² and ³ become 平方 and
///    立方, "." becomes "。", " - " becomes "，", full-width round and lenticular brackets and backticks go
///    and "——" becomes a space (`remove_bracket`), and a final run of "，", "," or "、" becomes "。".
///    It is split into pieces counted in code points.
/// 3. Other text: wetext normalises it (wetext itself sends all-digit text through its Chinese grammar),
///    every run of digits is spelt out in English words (`spell_out_number`, inflect), and it is split
///    into pieces counted in tokens.
/// 4. Pieces made only of punctuation and symbols are dropped.
///
/// Without wetext (grammars not installed, or `.disabled`), step 2 and 3 skip only the wetext call:
/// that is upstream's own path when neither ttsfrd nor wetext can be imported. Chinese digits then
/// reach the model as digits; English digits are still spelt out by step 3.
///
/// One departure bounds the model's memory: a sentence longer than `longestSentence` is cut at spaces (code
/// points for Chinese, and for a word that alone is too long) into parts of at most `maximumLength`, where
/// upstream keeps it whole; so no piece passes three times `maximumLength`. Upstream's LLM then reads, and sizes its cache for twenty times, however many tokens the sentence
/// has: 4 KB of "50% " spells out to 3,000 tokens without a sentence mark, and one such request took 2.5 GB.
///
/// Where upstream would fail, Chorus goes on: text wetext's tagger has no path for (e.g. English
/// "#4521"; upstream raises an AssertionError) keeps its unnormalised form; text that normalises to
/// nothing gives no pieces (upstream raises an IndexError).
public struct CosyVoiceTextNormalizer: Sendable {
    /// The wetext grammars, or nil to skip that step.
    public let wetext: WeTextNormalizer?
    /// Measures English pieces (upstream passes the engine's tokenizer).
    public let tokenizer: any TextTokenizer

    /// upstream `token_max_n`: a piece is closed before it would pass this length...
    public static let maximumLength = 80
    /// upstream `token_min_n`: ...if it already passes this one.
    public static let minimumLength = 60
    /// upstream `merge_len`: a last piece shorter than this joins the one before it.
    public static let mergeLength = 20
    /// The longest sentence kept whole (upstream keeps any): twice a piece, so a long sentence of prose still
    /// reads as one.
    public static let longestSentence = 2 * maximumLength

    public init(wetext: WeTextNormalizer?, tokenizer: any TextTokenizer) {
        self.wetext = wetext
        self.tokenizer = tokenizer
    }

    /// The language a text is split as: Chinese when it holds a CJK ideograph (upstream `contains_chinese`).
    public enum Language: Sendable {
        case chinese
        case other
    }

    /// upstream `text_normalize(text, split=True)`: the pieces to synthesise one after another.
    public func pieces(of text: String) throws -> [String] {
        try run(text).pieces
    }

    /// upstream `text_normalize(text, split=False)`: the whole text normalised, as for a prompt text.
    public func normalized(_ text: String) throws -> String {
        try run(text).text
    }

    private func run(_ original: String) throws -> (text: String, pieces: [String]) {
        let scalars = Array(original.unicodeScalars)
        if scalars.isEmpty || (Self.contains(scalars, "<|") && Self.contains(scalars, "|>")) {
            return (original, [original])
        }
        var text = Array(PythonStringRules.strip(original).unicodeScalars)
        let language: Language = Self.containsChinese(text) ? .chinese : .other
        text = Array(try wetextNormalized(String(String.UnicodeScalarView(text))).unicodeScalars)
        switch language {
        case .chinese:
            text = Self.replacing(text, "\n", with: "")
            text = Self.replaceBlank(text)
            text = Self.replaceCornerMark(text)
            text = Self.replacing(text, ".", with: "。")
            text = Self.replacing(text, " - ", with: "，")
            text = Self.removeBracket(text)
            text = Self.closingTrailingCommas(text)
        case .other:
            text = Self.spellOutNumbers(text)
        }
        let pieces = try Self.splitParagraph(text, language: language) { piece in
            language == .chinese ? piece.count : try tokenizer.encode(String(String.UnicodeScalarView(piece))).count
        }
        return (String(String.UnicodeScalarView(text)),
                pieces.filter { !Self.isOnlyPunctuation($0) }.map { String(String.UnicodeScalarView($0)) })
    }

    /// wetext's output, or `text` itself when wetext is off or its grammar has no path for the text.
    private func wetextNormalized(_ text: String) throws -> String {
        guard let wetext else { return text }
        do {
            return try wetext.normalize(text)
        } catch is WeightedFSTError {
            return text
        } catch is WeTextError {
            return text
        }
    }

    // MARK: upstream frontend_utils.py

    /// upstream `contains_chinese`: a code point in U+4E00-U+9FFF.
    static func containsChinese(_ text: [Unicode.Scalar]) -> Bool {
        text.contains { (0x4E00...0x9FFF).contains($0.value) }
    }

    /// Python's `in` for strings.
    static func contains(_ text: [Unicode.Scalar], _ part: String) -> Bool {
        text.contains(Array(part.unicodeScalars))
    }

    /// Python's `str.replace` (never called with an empty `old`): every non-overlapping occurrence, left to right,
    /// as the standard library's `replacing(_:with:)` does.
    static func replacing(_ text: [Unicode.Scalar], _ old: String, with new: String) -> [Unicode.Scalar] {
        guard !old.isEmpty else { return text }
        return text.replacing(Array(old.unicodeScalars), with: Array(new.unicodeScalars))
    }

    /// upstream `replace_blank`: a space stays only when the code points on both sides are ASCII and not
    /// spaces. As in Python, the one before the first is the last; a space at the very end (which the
    /// stripping upstream does first rules out) is dropped where Python would fail.
    static func replaceBlank(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        for (index, scalar) in text.enumerated() {
            guard scalar == " " else {
                output.append(scalar)
                continue
            }
            guard index + 1 < text.count else { continue }
            let after = text[index + 1], before = text[index == 0 ? text.count - 1 : index - 1]
            if after.isASCII && after != " " && before.isASCII && before != " " { output.append(scalar) }
        }
        return output
    }

    /// upstream `replace_corner_mark`: ² -> 平方 (square), ³ -> 立方 (cube).
    static func replaceCornerMark(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        replacing(replacing(text, "²", with: "平方"), "³", with: "立方")
    }

    /// upstream `remove_bracket`: （ ） 【 】 and ` removed, —— made a space.
    static func removeBracket(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var text = text
        for mark in ["（", "）", "【", "】", "`"] { text = replacing(text, mark, with: "") }
        return replacing(text, "——", with: " ")
    }

    /// upstream `re.sub(r'[，,、]+$', '。', text)`: a final run of commas becomes one full stop.
    static func closingTrailingCommas(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var end = text.count
        while end > 0, ["，", ",", "、"].contains(text[end - 1]) { end -= 1 }
        return end == text.count ? text : Array(text[..<end]) + ["。"]
    }

    /// upstream `spell_out_number`: each run of `str.isdigit()` code points in English words (inflect).
    /// A run inflect cannot name (more than 36 digits; upstream raises) stays as it is.
    static func spellOutNumbers(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        var run: [Unicode.Scalar] = []
        func flush() {
            guard !run.isEmpty else { return }
            if let words = EnglishNumberWords.words(for: run) { output += words.unicodeScalars } else { output += run }
            run.removeAll()
        }
        for scalar in text {
            if PythonStringRules.isDigit(scalar) {
                run.append(scalar)
            } else {
                flush()
                output.append(scalar)
            }
        }
        flush()
        return output
    }

    /// Sentence marks that end a sentence in upstream's `split_paragraph` (no commas: `comma_split=False`).
    static func sentenceMarks(_ language: Language) -> Set<Unicode.Scalar> {
        switch language {
        case .chinese: return ["。", "？", "！", "；", "：", "、", ".", "?", "!", ";"]
        case .other: return [".", "?", "!", ";", ":"]
        }
    }

    /// upstream `split_paragraph(text, tokenize, lang, token_max_n=80, token_min_n=60, merge_len=20,
    /// comma_split=False)`: close the text with a full stop ("。" for Chinese, "." otherwise) when it does
    /// not end on a sentence mark; cut after every mark, a closing `"` or `”` right after it going along;
    /// pack sentences greedily, closing a piece when the next sentence would take it past
    /// `maximumLength` and it already passes `minimumLength`; a last piece shorter than `mergeLength`
    /// joins the one before. `length` measures a piece (code points for Chinese, tokens otherwise).
    static func splitParagraph(_ input: [Unicode.Scalar], language: Language,
                               length: ([Unicode.Scalar]) throws -> Int) throws -> [[Unicode.Scalar]] {
        guard let last = input.last else { return [] }  // upstream reads text[-1] and fails here
        let marks = sentenceMarks(language)
        var text = input
        if !marks.contains(last) { text.append(language == .chinese ? "。" : ".") }
        var sentences: [[Unicode.Scalar]] = []
        var start = 0
        for (index, scalar) in text.enumerated() where marks.contains(scalar) {
            if index > start { sentences.append(Array(text[start..<index]) + [scalar]) }
            // A quote right after the mark closes the sentence just cut (upstream pops the last one,
            // failing when there is none; then the quote starts the next sentence here).
            if index + 1 < text.count, text[index + 1] == "\"" || text[index + 1] == "”", !sentences.isEmpty {
                sentences[sentences.count - 1].append(text[index + 1])
                start = index + 2
            } else {
                start = index + 1
            }
        }
        sentences = try sentences.flatMap { try fitted($0, language: language, length: length) }
        var pieces: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        for sentence in sentences {
            if try length(current + sentence) > maximumLength && length(current) > minimumLength {
                pieces.append(current)
                current = []
            }
            current += sentence
        }
        if !current.isEmpty {
            if try length(current) < mergeLength && !pieces.isEmpty {
                pieces[pieces.count - 1] += current
            } else {
                pieces.append(current)
            }
        }
        return pieces
    }

    /// `sentence` itself when its length is within `longestSentence`, else cut into parts within `maximumLength`: words (each
    /// with the spaces after it) packed greedily, and a word that alone is too long, or Chinese, code point by
    /// code point. Each length measured is of one part and one word, so the work grows with the sentence.
    static func fitted(_ sentence: [Unicode.Scalar], language: Language,
                       length: ([Unicode.Scalar]) throws -> Int) throws -> [[Unicode.Scalar]] {
        guard try length(sentence) > longestSentence else { return [sentence] }
        var units: [[Unicode.Scalar]] = []
        if language == .chinese {
            units = sentence.map { [$0] }
        } else {
            var word: [Unicode.Scalar] = []
            for (index, scalar) in sentence.enumerated() {
                word.append(scalar)
                let next = index + 1 < sentence.count ? sentence[index + 1] : nil
                if scalar == " ", next != " " {
                    units.append(word)
                    word = []
                }
            }
            if !word.isEmpty { units.append(word) }
        }
        var parts: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        func add(_ unit: [Unicode.Scalar]) throws {
            if !current.isEmpty, try length(current + unit) > maximumLength {
                parts.append(current)
                current = []
            }
            current += unit
        }
        for unit in units {
            if unit.count > 1, try length(unit) > maximumLength {
                for scalar in unit { try add([scalar]) }
            } else {
                try add(unit)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    /// upstream `is_only_punctuation`: empty, or only punctuation (P*) and symbols (S*).
    static func isOnlyPunctuation(_ text: [Unicode.Scalar]) -> Bool {
        text.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                 .initialPunctuation, .finalPunctuation, .otherPunctuation,
                 .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
                return true
            default:
                return false
            }
        }
    }
}
