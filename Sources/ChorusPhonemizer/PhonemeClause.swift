/// The phonemes of one clause and how espeak-ng ended it.
public struct PhonemeClause: Sendable, Equatable {
    /// IPA phonemes with stress marks; words separated by single spaces.
    public var phonemes: String
    /// The punctuation mark that ended the clause in the text (".", ",", "?", "…", "—", ...), if any.
    public var terminator: Character?
    /// The clause type espeak-ng gave the clause, when it is one of the six plain types; nil for
    /// every other ending (an ellipsis, a full-width mark, a paragraph break, the end of the text).
    /// piper-phonemize writes exactly these six as punctuation phonemes.
    public var punctuation: Punctuation?
    /// Whether espeak-ng ends a sentence after this clause.
    public var endsSentence: Bool

    public init(phonemes: String, terminator: Character?, punctuation: Punctuation?, endsSentence: Bool) {
        self.phonemes = phonemes
        self.terminator = terminator
        self.punctuation = punctuation
        self.endsSentence = endsSentence
    }

    /// espeak-ng's six plain clause types (`CLAUSE_PERIOD` ... `CLAUSE_SEMICOLON` in its translate.h).
    public enum Punctuation: Character, Sendable, Equatable {
        case period = "."
        case question = "?"
        case exclamation = "!"
        case comma = ","
        case colon = ":"
        case semicolon = ";"
    }
}
