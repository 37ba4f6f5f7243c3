import Foundation

/// Cleans text before synthesis: whitespace runs and full-width/half-width forms.
///
/// Apply it before `SentenceChunker` when the original text does not need to be recovered; the
/// chunker itself never changes a character.
public struct TextNormalizer: Sendable {
    /// Which full-width ASCII forms (U+FF01 to U+FF5E) become plain ASCII.
    public enum FullWidthFolding: Sendable {
        /// Leave them alone.
        case none
        /// Digits and Latin letters only (`１２ＡＢ` -> `12AB`); CJK punctuation such as `，` stays.
        case alphanumerics
        /// Every full-width ASCII form, punctuation included, and the ideographic space.
        case all
    }

    /// Whether runs of whitespace become one space (or one line break when the run held one),
    /// with leading and trailing whitespace removed.
    public var collapsesWhitespace: Bool
    /// Which full-width forms are folded to ASCII.
    public var fullWidth: FullWidthFolding
    /// Whether half-width katakana (`ｶﾞ`) becomes the usual full-width form (`ガ`).
    public var widensHalfWidthKatakana: Bool

    /// A normaliser; the defaults suit every engine's front end.
    public init(
        collapsesWhitespace: Bool = true, fullWidth: FullWidthFolding = .alphanumerics,
        widensHalfWidthKatakana: Bool = true
    ) {
        self.collapsesWhitespace = collapsesWhitespace
        self.fullWidth = fullWidth
        self.widensHalfWidthKatakana = widensHalfWidthKatakana
    }

    /// `text` with the chosen normalisations applied.
    public func normalize(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var pendingSpace: Character? = nil
        for character in text {
            let folded = fold(character)
            if collapsesWhitespace, folded.isWhitespace {
                if folded.isNewline { pendingSpace = "\n" } else if pendingSpace == nil { pendingSpace = " " }
                continue
            }
            if let space = pendingSpace {
                if !output.isEmpty { output.append(space) }
                pendingSpace = nil
            }
            output.append(folded)
        }
        return output
    }

    private func fold(_ character: Character) -> Character {
        guard let first = character.unicodeScalars.first?.value else { return character }
        switch first {
        case 0xFF10...0xFF19, 0xFF21...0xFF3A, 0xFF41...0xFF5A:
            if fullWidth != .none { return Self.narrowed(character) }
        case 0xFF01...0xFF5E:
            if fullWidth == .all { return Self.narrowed(character) }
        case 0x3000:
            if fullWidth == .all { return " " }
        case 0xFF61...0xFF9F:
            if widensHalfWidthKatakana {
                let widened = String(character).precomposedStringWithCompatibilityMapping
                if widened.count == 1, let result = widened.first { return result }
            }
        default:
            break
        }
        return character
    }

    /// The ASCII form of a full-width character; marks combined with it are kept.
    private static func narrowed(_ character: Character) -> Character {
        var scalars = String.UnicodeScalarView()
        for (index, scalar) in character.unicodeScalars.enumerated() {
            if index == 0, let ascii = Unicode.Scalar(scalar.value - 0xFEE0) {
                scalars.append(ascii)
            } else {
                scalars.append(scalar)
            }
        }
        return Character(String(scalars))
    }
}
