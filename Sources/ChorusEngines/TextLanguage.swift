/// The language a text is written in, as far as its scripts tell: enough to pick a voice that speaks it
/// natively when no engine or voice is named.
///
/// The rule counts letters by script: Latin letters, kana, Han characters and Hangul. The script group
/// with the most letters decides (Han and kana count together, as Japanese writes with both): kana
/// present means Japanese, Han without kana Chinese, Hangul Korean, Latin English. Digits, punctuation
/// and symbols count for nothing; a text with no such letter has no language here (nil).
///
/// What the rule cannot tell apart: languages written in Latin letters (French, Spanish, German and
/// the rest are all taken for English, accents or not); Japanese written in Han alone (a kanji-only
/// headline is taken for Chinese); Mandarin, Cantonese, simplified and traditional Chinese; and it
/// knows no other script (Cyrillic, Greek, Arabic, Devanagari, Thai ... give nil). A mixed text goes
/// to its larger script by letter count, so "Tokyo is 東京" is English and a Japanese sentence with an
/// English word in it is Japanese.
public struct TextLanguage: Sendable, Hashable, CustomStringConvertible {
    /// A BCP 47 primary language subtag: "en", "ja", "zh" or "ko".
    public let code: String
    /// Its name in English, for people ("Japanese").
    public let name: String
    /// What in the text gave it away ("kana", "Latin letters"), for a reason shown to people.
    public let evidence: String

    public static let english = TextLanguage(code: "en", name: "English", evidence: "Latin letters")
    public static let japanese = TextLanguage(code: "ja", name: "Japanese", evidence: "kana")
    public static let chinese = TextLanguage(code: "zh", name: "Chinese", evidence: "Han characters without kana")
    public static let korean = TextLanguage(code: "ko", name: "Korean", evidence: "Hangul")

    public var description: String { "\(name) (\(evidence))" }

    /// The language of `text` by the rule above; nil when it has no Latin, kana, Han or Hangul letter.
    public static func of(_ text: String) -> TextLanguage? {
        var latin = 0, kana = 0, han = 0, hangul = 0
        for scalar in text.unicodeScalars {
            switch Script(scalar) {
            case .latin?: latin += 1
            case .kana?: kana += 1
            case .han?: han += 1
            case .hangul?: hangul += 1
            case nil: break
            }
        }
        let cjk = kana + han
        guard max(latin, cjk, hangul) > 0 else { return nil }
        if cjk >= hangul, cjk >= latin { return kana > 0 ? .japanese : .chinese }
        return hangul >= latin ? .korean : .english
    }

    /// Whether a voice's language tag (BCP 47, "en-US", "ja", "pt-BR"; Piper's "en_US" too) is this
    /// language: its primary subtag is this code.
    public func isSpoken(by voiceLanguage: String) -> Bool {
        let primary = voiceLanguage.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
        return primary == code
    }

    /// The scripts the rule counts, by Unicode block.
    private enum Script {
        case latin, kana, han, hangul

        init?(_ scalar: Unicode.Scalar) {
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x24F, 0x1E00...0x1EFF:
                self = .latin
            case 0x3041...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9D:
                self = .kana
            case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3134F:
                self = .han
            case 0x1100...0x11FF, 0x3131...0x318E, 0xAC00...0xD7A3:
                self = .hangul
            default:
                return nil
            }
        }
    }
}
