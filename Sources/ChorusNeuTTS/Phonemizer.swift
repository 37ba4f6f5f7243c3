import ChorusPhonemizer

/// Stage 0: text to the phoneme string neutts 1.4.1 puts in its prompt (`NeuTTS._to_phones` over
/// neutts/phonemizers.py): espeak-ng through the `phonemizer` package with punctuation preserved (3.4's
/// rules), stress marks kept and language-switch flags removed; French drops every "-"; the result's
/// white space collapsed to single spaces.
///
/// The phonemes depend on the espeak-ng release: upstream ships 1.52, and `espeakVersion` says which
/// one this process loaded (see README, "espeak-ng version").
public struct NeuTTSPhonemizer: Sendable {
    /// The languages of Neuphonic's backbones (upstream `BACKBONE_LANGUAGE_MAP`).
    public static let languages = ["en-us", "de", "fr-fr", "es"]

    /// The espeak-ng language code the text is read in.
    public let language: String
    /// The espeak-ng instance it reads through (its `version` and `dataPath` say which build).
    public let espeak: EspeakPhonemizer

    /// A phonemizer for `language` (an espeak-ng code, e.g. "en-us").
    public init(language: String, espeak: EspeakPhonemizer? = nil) throws {
        self.language = language
        self.espeak = try espeak ?? EspeakPhonemizer.shared()
    }

    /// The version of the espeak-ng library in use.
    public var espeakVersion: String { espeak.version }

    /// The phonemes of `text`, as upstream's `_to_phones`.
    public func phonemes(for text: String) throws -> String {
        let split = PunctuationSplit(text, rules: .phonemizer3_4)
        let restored = split.restore(try split.chunks.map(phonemizeChunk))
        // upstream FrenchPhonemizer.clean, before _to_phones splits on white space.
        let cleaned = language == "fr-fr" ? restored.filter { $0 != "-" } : restored
        return cleaned.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// One run of words as phonemizer's espeak backend writes it: the clauses' IPA joined by spaces.
    private func phonemizeChunk(_ chunk: String) throws -> String {
        let clauses = try espeak.phonemize(chunk, voice: language, options: .init(separatesPhonemes: true))
        let line = clauses.map(\.phonemes).filter { !$0.isEmpty }.joined(separator: " ")
        return line.isEmpty ? "" : line + " "
    }
}
