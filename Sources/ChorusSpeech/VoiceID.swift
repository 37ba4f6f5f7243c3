import Foundation

/// The one rule for a voice's id, for every engine, the command line and the server: letters, digits, `-` and
/// `_` in any script (starting with a letter or digit), nothing invisible, at most `maximumBytes` of UTF-8, kept
/// in Unicode's composed form (NFC). Two ids that differ only by Unicode form, width or compatibility characters
/// (`café` composed and decomposed, full-width `ｍｉｎｅ`) name the same voice (`collisionKey`).
public enum VoiceID {
    /// The longest id in UTF-8 bytes: the folder name and its staging name must fit a file name (255 bytes).
    public static let maximumBytes = 128

    /// `id` in NFC, or `SpeechError.invalidVoiceID` saying what is wrong with it.
    public static func checked(_ id: String) throws -> String {
        let normalized = id.precomposedStringWithCanonicalMapping
        func refuse(_ problem: String) -> SpeechError { .invalidVoiceID(excerpt(of: id), problem: problem) }
        guard let first = normalized.first else { throw refuse("it is empty") }
        if let hidden = normalized.unicodeScalars.first(where: { $0.properties.isDefaultIgnorableCodePoint }) {
            throw refuse("it holds the invisible character U+\(String(hidden.value, radix: 16, uppercase: true))")
        }
        let allowed = normalized.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .decimalNumber, .letterNumber, .otherNumber: true
            default: scalar == "-" || scalar == "_"
            }
        }
        guard allowed, first.isLetter || first.isNumber else {
            throw refuse("it must be letters, digits, '-' or '_', starting with a letter or digit")
        }
        guard normalized.utf8.count <= maximumBytes else {
            throw refuse("it is \(normalized.utf8.count) bytes of UTF-8, over the limit of \(maximumBytes) "
                         + "(\(maximumBytes) Latin letters or \(maximumBytes / 3) Chinese characters)")
        }
        return normalized
    }

    /// What makes two ids the same voice: compatibility composition (NFKC) folds composed and decomposed
    /// letters, full- and half-width forms and ligatures together; invisible characters are dropped.
    public static func collisionKey(_ id: String) -> String {
        String(id.precomposedStringWithCompatibilityMapping.unicodeScalars.filter {
            !$0.properties.isDefaultIgnorableCodePoint
        }.map(Character.init))
    }

    /// At most 40 characters of `text`, control and invisible characters shown as U+XXXX, for messages.
    public static func excerpt(of text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(40) {
            let visible = !scalar.properties.isDefaultIgnorableCodePoint && scalar.properties.generalCategory != .control
            shown += visible ? String(scalar) : "U+\(String(scalar.value, radix: 16, uppercase: true))"
        }
        return text.unicodeScalars.count > 40 ? shown + "..." : shown
    }
}
