import Foundation
import ChorusPhonemizer

/// Turns espeak clauses into Piper's model input, as piper-phonemize frames it.
struct PiperPhonemeEncoder: Sendable {
    let ids: [Unicode.Scalar: [Int64]]

    /// One sentence's phoneme string: each clause's IPA, then its punctuation (a comma, colon or
    /// semicolon also gets a space after it, as piper-phonemize writes it).
    static func sentences(from clauses: [PhonemeClause]) -> [String] {
        var sentences: [String] = []
        var current = ""
        for clause in clauses {
            current += clause.phonemes
            // Piper's map has no "…" or "—": they are spoken as a period and a comma.
            switch clause.asciiTerminator {
            case .some(let mark) where ".!?…".contains(mark):
                current.append(mark == "…" ? "." : mark)
            case .some(let mark) where ",:;—".contains(mark):
                current.append(mark == "—" ? "," : mark)
                current.append(" ")
            default:
                current.append(" ")
            }
            if clause.endsSentence {
                sentences.append(current)
                current = ""
            }
        }
        if current.contains(where: { !$0.isWhitespace }) { sentences.append(current) }
        return sentences.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `^`, then each phoneme (a Unicode scalar after canonical decomposition) followed by `_`, then `$`.
    /// Phonemes missing from the map are skipped, as Piper does.
    func encode(_ phonemes: String) -> [Int64] {
        let pad = ids["_"]!
        var output = ids["^"]! + pad
        for scalar in phonemes.decomposedStringWithCanonicalMapping.unicodeScalars {
            guard let phonemeIDs = ids[scalar] else { continue }
            output += phonemeIDs
            output += pad
        }
        output += ids["$"]!
        return output
    }
}
