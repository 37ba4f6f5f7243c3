/// The phonemes of one clause and the punctuation that closed it.
public struct PhonemeClause: Sendable, Equatable {
    /// IPA phonemes with stress marks; words separated by single spaces.
    public var phonemes: String
    /// The punctuation mark that ended the clause in the text (".", ",", "?", ...), if any.
    public var terminator: Character?

    public init(phonemes: String, terminator: Character?) {
        self.phonemes = phonemes
        self.terminator = terminator
    }

    /// Whether the clause ends a sentence (. ! ? and their CJK kin).
    public var endsSentence: Bool {
        guard let terminator else { return false }
        return PhonemeClause.sentenceEnds.contains(terminator)
    }

    /// The terminator with full-width CJK punctuation written as its ASCII kin (。 -> ., 、 -> ,),
    /// the form phoneme vocabularies spell it in.
    public var asciiTerminator: Character? {
        switch terminator {
        case "。": "."
        case "！": "!"
        case "？": "?"
        case "，", "、": ","
        case "：": ":"
        case "；": ";"
        default: terminator
        }
    }

    static let sentenceEnds: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]
    static let clauseMarks: Set<Character> = sentenceEnds.union([",", ";", ":", "—", "，", "；", "：", "、"])
}
