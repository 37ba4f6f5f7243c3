/// How espeak-ng ended a clause, recovered from the text it consumed for it.
///
/// espeak-ng 1.51 (Debian 12's) does not report a clause's type through `espeak_TextToPhonemes`;
/// piper-phonemize reads it from its fork's `espeak_TextToPhonemesWithTerminator`. This follows the
/// decisions of 1.51's `ReadClause` (readclause.c) and `clause_type_from_codepoint` for the character
/// that closed the clause, so Chorus writes the same punctuation as piper-phonemize:
/// - three or more dots, and U+2026, are an ellipsis: a clause type of its own ("semicolon, speak the
///   name, optional space") that matches none of the six plain types and does not end the sentence;
/// - in a run of `?` and `!`, the first one decides;
/// - dashes U+2013 and U+2014 (and U+2E3A/B, U+FE31/2) are semicolons;
/// - marks that need no space after them (full-width CJK, Devanagari danda, inverted ¡ ¿) match none of
///   the plain types, though the sentence-final ones still end the sentence;
/// - two or more newlines after the mark make a paragraph: the sentence ends with no punctuation;
/// - a clause cut without a mark ends the sentence only at the end of the text or at a blank line.
struct ClauseEnd: Equatable {
    var terminator: Character?
    var punctuation: PhonemeClause.Punctuation?
    var endsSentence: Bool

    init(terminator: Character?, punctuation: PhonemeClause.Punctuation?, endsSentence: Bool) {
        self.terminator = terminator
        self.punctuation = punctuation
        self.endsSentence = endsSentence
    }

    /// The ending of the clause espeak consumed as `consumed`. Except at the end of the text, espeak has
    /// also read the first character of the next clause (it keeps it for the next call), which is dropped.
    init(consumed: String, hasLookahead: Bool) {
        var text = Substring(consumed)
        if hasLookahead, !text.isEmpty { text.removeLast() }
        var newlines = 0
        while let last = text.last, last.isWhitespace {
            if last.isNewline { newlines += 1 }
            text.removeLast()
        }
        // A closing bracket or quote right after the mark is read with the mark (`"Stop!" he said`).
        var core = text
        while let last = core.last, Self.isBracket(last) { core.removeLast() }
        if core.count < text.count, let last = core.last, Self.kind(of: last) != nil { text = core }

        guard let mark = text.last, var kind = Self.kind(of: mark) else {
            terminator = nil
            punctuation = nil
            endsSentence = !hasLookahead || newlines >= 2
            return
        }
        var markIndex = text.index(before: text.endIndex)
        if mark == ".", text.hasSuffix("...") { kind = MarkKind(type: .ellipsis, optionalSpaceAfter: true) }
        if kind.type == .question || kind.type == .exclamation {
            // The first of a run of ? and ! decides.
            while markIndex > text.startIndex, let before = Self.kind(of: text[text.index(before: markIndex)]),
                  before.type == .question || before.type == .exclamation {
                markIndex = text.index(before: markIndex)
                kind = before
            }
        }
        terminator = kind.type == .ellipsis ? "…" : text[markIndex]
        if newlines >= 2 {
            punctuation = nil
            endsSentence = true
            return
        }
        punctuation = kind.optionalSpaceAfter ? nil : kind.type.punctuation
        endsSentence = kind.type.endsSentence
    }

    enum MarkType {
        case fullStop, question, exclamation, comma, colon, semicolon, ellipsis

        var punctuation: PhonemeClause.Punctuation? {
            switch self {
            case .fullStop: .period
            case .question: .question
            case .exclamation: .exclamation
            case .comma: .comma
            case .colon: .colon
            case .semicolon: .semicolon
            case .ellipsis: nil
            }
        }

        var endsSentence: Bool { self == .fullStop || self == .question || self == .exclamation }
    }

    struct MarkKind: Equatable {
        var type: MarkType
        var optionalSpaceAfter = false
    }

    /// espeak-ng 1.51's clause punctuation (ucd-tools proplist.c) for Latin, Greek, Arabic, Devanagari
    /// and CJK text; marks of other scripts are read as no punctuation.
    static func kind(of character: Character) -> MarkKind? {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return nil }
        switch scalar.value {
        case 0x2E, 0x06D4, 0xFE52, 0xFF61: return MarkKind(type: .fullStop)
        case 0x3F, 0x037E, 0x061F, 0x2047, 0xFE56: return MarkKind(type: .question)
        case 0x21, 0x203C, 0xFE57: return MarkKind(type: .exclamation)
        case 0x2C, 0x060C, 0xFE50, 0xFE51, 0xFF64: return MarkKind(type: .comma)
        case 0x3A, 0xFE55: return MarkKind(type: .colon)
        case 0x3B, 0x0387, 0x061B, 0x204F, 0xFE54, 0x2013, 0x2014, 0x2E3A, 0x2E3B, 0xFE31, 0xFE32:
            return MarkKind(type: .semicolon)
        case 0x2026, 0x0EAF, 0x1801: return MarkKind(type: .ellipsis, optionalSpaceAfter: true)
        case 0x00A1, 0x00BF, 0xFF1B: return MarkKind(type: .semicolon, optionalSpaceAfter: true)
        case 0x0964, 0x3002, 0xFF0E: return MarkKind(type: .fullStop, optionalSpaceAfter: true)
        case 0xFF1F: return MarkKind(type: .question, optionalSpaceAfter: true)
        case 0xFF01: return MarkKind(type: .exclamation, optionalSpaceAfter: true)
        case 0x3001, 0xFF0C: return MarkKind(type: .comma, optionalSpaceAfter: true)
        case 0xFF1A: return MarkKind(type: .colon, optionalSpaceAfter: true)
        default: return nil
        }
    }

    /// espeak-ng's `IsBracket`: brackets, quotes and U+2014-U+201F.
    static func isBracket(_ character: Character) -> Bool {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return false }
        if (0x2014...0x201F).contains(scalar.value) { return true }
        return "()[]{}<>\"'`«»《》".unicodeScalars.contains(scalar)
    }
}
