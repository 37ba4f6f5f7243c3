import Foundation
import ChorusPhonemizer
import ChorusSpeech

/// Kokoro's phoneme vocabulary (`vocab.json`); `KokoroPhonemizer` writes the symbols it holds.
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

    /// Ids of every phoneme the vocabulary knows; others are dropped, as kokoro-onnx and misaki's users do.
    func encode(_ phonemes: String) -> [Int64] {
        phonemes.unicodeScalars.compactMap { ids[$0] }
    }
}
