import Foundation
import ChorusPhonemizer

/// Turns espeak clauses into Piper's model input, as piper-phonemize frames it.
struct PiperPhonemeEncoder: Sendable {
    let ids: [Unicode.Scalar: [Int64]]

    /// One phoneme string per sentence, as piper-phonemize 1.1.0 (`phonemize_eSpeak`) frames espeak-ng's
    /// clauses: each clause's IPA, then its punctuation when espeak-ng gave it one of the plain types
    /// (a comma, colon or semicolon followed by a space), nothing else; an ellipsis or a dash is no
    /// sentence end ("Wait... what?" stays one sentence, `wˈeɪtwˌʌt?`). Sentences with no phonemes are
    /// left out, as piper-tts skips them.
    static func sentences(from clauses: [PhonemeClause]) -> [String] {
        var sentences: [String] = []
        var current = ""
        for clause in clauses {
            current += clause.phonemes
            if let mark = clause.punctuation {
                current.append(mark.rawValue)
                if mark == .comma || mark == .colon || mark == .semicolon { current.append(" ") }
            }
            if clause.endsSentence {
                sentences.append(current)
                current = ""
            }
        }
        sentences.append(current)
        return sentences.filter { !$0.isEmpty }
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
