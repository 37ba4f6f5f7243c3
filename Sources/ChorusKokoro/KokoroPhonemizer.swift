import ChorusPhonemizer

/// Kokoro's front end: text to the phoneme string misaki 0.9.4's `EspeakFallback` makes of it
/// (misaki/espeak.py), the symbols Kokoro's voices were trained on.
///
/// misaki runs espeak-ng through phonemizer with punctuation preserved: the text is cut at runs of
/// punctuation marks, each run of words is phonemized on its own, and the marks are put back as
/// written (`Punctuation.preserve` and `.restore` in phonemizer/punctuation.py). The IPA is then
/// rewritten into misaki's symbols: the general table, then the American or British rules.
/// Checked against misaki's output on Tests/EngineTests/FrontEnd (goldens made on espeak-ng 1.51 and 1.52).
struct KokoroPhonemizer: Sendable {
    /// Which of misaki's rule sets applies: the American ones for "en-us" (and plain "en"), the British
    /// ones for "en-gb" and its variants, and only the general table for other languages.
    enum Dialect: Sendable, Equatable {
        case american, british, other

        init(espeakVoice: String) {
            let voice = espeakVoice.lowercased()
            if voice.hasPrefix("en-gb") {
                self = .british
            } else if voice.hasPrefix("en") {
                self = .american
            } else {
                self = .other
            }
        }
    }

    let espeakVoice: String
    let dialect: Dialect
    let phonemizer: EspeakPhonemizer

    init(espeakVoice: String, phonemizer: EspeakPhonemizer) {
        self.espeakVoice = espeakVoice
        dialect = Dialect(espeakVoice: espeakVoice)
        self.phonemizer = phonemizer
    }

    /// The phonemes of `text` in Kokoro's symbols, punctuation kept as written.
    ///
    /// One difference from misaki, on purpose: espeak's language-switch flags ("(fr)" around a French
    /// word) are removed, where phonemizer's default keeps them and Kokoro would read the letters.
    func phonemes(for text: String) throws -> String {
        let split = PunctuationSplit(text)
        let words = try split.chunks.map(phonemizeChunk)
        let restored = split.restore(words)
        return Self.rewrite(restored.trimmingWhitespace(), dialect: dialect)
    }

    /// One run of words as phonemizer's espeak backend writes it: the clauses' IPA joined by spaces,
    /// each word followed by a space.
    private func phonemizeChunk(_ chunk: String) throws -> String {
        let clauses = try phonemizer.phonemize(chunk, voice: espeakVoice, options: .init(tiesMultiLetterPhonemes: true))
        let line = clauses.map(\.phonemes).filter { !$0.isEmpty }.joined(separator: " ")
        guard !line.isEmpty else { return "" }
        return line.split(separator: " ", omittingEmptySubsequences: false).map { $0 + " " }.joined()
    }

    // MARK: - misaki's rewrite

    private static let tie = String(EspeakPhonemizer.tie)

    /// misaki's `EspeakFallback.E2M`, longest first (ties in misaki's order); `^` there is the tie here.
    static let generalTable: [(String, String)] = [
        ("ʔˌn\u{0329}", "ʔn"),
        ("ʔn\u{0329}", "ʔn"), ("a\(tie)ɪ", "I"), ("a\(tie)ʊ", "W"), ("d\(tie)ʒ", "ʤ"), ("e\(tie)ɪ", "A"),
        ("t\(tie)ʃ", "ʧ"), ("ɔ\(tie)ɪ", "Y"), ("ə\(tie)l", "ᵊl"),
        ("ʲo", "jo"), ("ʲə", "jə"),
        ("e", "A"), ("ʲ", ""), ("ɚ", "əɹ"), ("r", "ɹ"), ("x", "k"), ("ç", "k"), ("ɐ", "ə"), ("ɬ", "l"), ("\u{0303}", ""),
    ]

    /// British English: `eə` as `ɛː` (never met after the general table turned `e` into `A`, as in
    /// misaki), `iə` as `ɪə`, `əʊ` as Q.
    static let britishRules: [(String, String)] = [("e\(tie)ə", "ɛː"), ("iə", "ɪə"), ("ə\(tie)ʊ", "Q")]

    /// American English: `oʊ` as O, `ɜː` as `ɜɹ` (r-coloured), `ɪə` as `iə`, length marks dropped.
    static let americanRules: [(String, String)] = [("o\(tie)ʊ", "O"), ("ɜːɹ", "ɜɹ"), ("ɜː", "ɜɹ"), ("ɪə", "iə"), ("ː", "")]

    /// For every English: bare `o` as `ɔ` (espeak-ng before 1.52 writes `o` where misaki has `ɔ`), the
    /// flap as T and the glottal stop as t (misaki's symbols for them).
    static let closingRules: [(String, String)] = [("o", "ɔ"), ("ɾ", "T"), ("ʔ", "t")]

    /// espeak IPA (ties between the letters of one phoneme) in misaki's symbols.
    static func rewrite(_ ipa: String, dialect: Dialect) -> String {
        var scalars = Array(ipa.unicodeScalars)
        func apply(_ rules: [(String, String)]) {
            for (from, to) in rules { scalars = replacing(Array(from.unicodeScalars), with: Array(to.unicodeScalars), in: scalars) }
        }
        apply(generalTable)
        scalars = syllabicMarksAsSchwa(scalars)
        switch dialect {
        case .british: apply(britishRules)
        case .american: apply(americanRules)
        case .other: break
        }
        if dialect != .other { apply(closingRules) }
        scalars.removeAll { $0 == EspeakPhonemizer.tie.unicodeScalars.first! }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// A syllabic consonant (`n̩`, `l̩`) as a schwa before the consonant (`ᵊn`); a stray mark is dropped.
    static func syllabicMarksAsSchwa(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let mark: Unicode.Scalar = "\u{0329}"
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count + 4)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if index + 1 < scalars.count, scalars[index + 1] == mark, !scalar.properties.isWhitespace {
                output += ["ᵊ", scalar]
                index += 2
            } else {
                output.append(scalar)
                index += 1
            }
        }
        output.removeAll { $0 == mark }
        return output
    }

    /// Every occurrence of `pattern`, left to right and not overlapping, replaced, code point by code
    /// point as Python's `str.replace` does (Swift's string search would match whole characters).
    static func replacing(_ pattern: [Unicode.Scalar], with replacement: [Unicode.Scalar], in scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        guard !pattern.isEmpty, scalars.count >= pattern.count else { return scalars }
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            if scalars[index] == pattern[0], index + pattern.count <= scalars.count,
               scalars[index..<(index + pattern.count)].elementsEqual(pattern) {
                output += replacement
                index += pattern.count
            } else {
                output.append(scalars[index])
                index += 1
            }
        }
        return output
    }
}

/// phonemizer's punctuation split, with misaki's rules (phonemizer 3.3: every mark is punctuation).
typealias PunctuationSplit = ChorusPhonemizer.PunctuationSplit

extension String {
    /// The string without white space at either end, as Python's `str.strip()`.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
