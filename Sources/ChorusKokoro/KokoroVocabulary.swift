import Foundation
import ChorusPhonemizer
import ChorusSpeech

/// Kokoro's phoneme vocabulary (`vocab.json`) and the mapping from espeak-ng IPA into it.
struct KokoroVocabulary: Sendable {
    /// The longest id sequence one model call accepts, padding excluded.
    static let maxIDs = 510

    let ids: [Unicode.Scalar: Int64]

    init(contentsOf url: URL) throws {
        func invalid(_ reason: String) -> SpeechError { .invalidModelFile(path: url.path, reason: reason) }
        guard let data = try? Data(contentsOf: url) else { throw invalid("cannot be read") }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let vocab = root["vocab"] as? [String: Any], !vocab.isEmpty
        else { throw invalid("expected a JSON object with a non-empty \"vocab\" map") }
        var ids: [Unicode.Scalar: Int64] = [:]
        for (symbol, value) in vocab {
            guard symbol.unicodeScalars.count == 1, let id = (value as? NSNumber)?.int64Value else {
                throw invalid("entry '\(symbol)' is not one character mapped to an integer")
            }
            ids[symbol.unicodeScalars.first!] = id
        }
        self.ids = ids
    }

    /// Ids of every phoneme the vocabulary knows; others (none, for English espeak output) are dropped.
    func encode(_ phonemes: String) -> [Int64] {
        phonemes.unicodeScalars.compactMap { ids[$0] }
    }

    /// espeak-ng IPA (with tied multi-letter phonemes) rewritten in the symbols Kokoro was trained on.
    ///
    /// Kokoro's English voices were trained on misaki's phoneme set, where diphthongs and affricates
    /// are single letters (eɪ -> A, aɪ -> I, aʊ -> W, ɔɪ -> Y, oʊ -> O, dʒ -> ʤ, tʃ -> ʧ) and a few
    /// espeak symbols have nearer equivalents; this follows misaki's espeak fallback table.
    static func kokoroPhonemes(fromEspeak ipa: String) -> String {
        var text = ipa
        for (from, to) in tiedReplacements { text = text.replacingOccurrences(of: from, with: to) }
        text.removeAll { $0 == EspeakPhonemizer.tie }
        for (from, to) in plainReplacements { text = text.replacingOccurrences(of: from, with: to) }
        return text
    }

    private static let tie = String(EspeakPhonemizer.tie)
    private static let tiedReplacements: [(String, String)] = [
        ("a\(tie)ɪ", "I"), ("a\(tie)ʊ", "W"), ("e\(tie)ɪ", "A"), ("ɔ\(tie)ɪ", "Y"), ("o\(tie)ʊ", "O"),
        ("ə\(tie)ʊ", "Q"), ("d\(tie)ʒ", "ʤ"), ("t\(tie)ʃ", "ʧ"), ("ə\(tie)l", "ᵊl"),
    ]
    private static let plainReplacements: [(String, String)] = [
        ("ʔn\u{0329}", "tn"), ("ʔn", "tn"), ("ʔ", "t"), ("r", "ɹ"), ("x", "k"), ("ç", "k"), ("ɐ", "ə"),
        ("ɬ", "l"), ("ʲ", ""), ("\u{0303}", ""), ("\u{0329}", ""),
    ]
}
