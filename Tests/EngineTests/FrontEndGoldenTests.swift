import Foundation
import ChorusPhonemizer
import Testing
@testable import ChorusKokoro
@testable import ChorusPiper

/// Chorus's Piper and Kokoro front ends against the references the voices were trained with, on the
/// whole corpus of Tests/EngineTests/FrontEnd (made by scripts/testdata/make_frontend_goldens.py):
/// piper-phonemize 1.1.0 for Piper, misaki 0.9.4's EspeakFallback for Kokoro.
///
/// The goldens hold one output per espeak-ng version: 1.51 (Debian 12's, and piper-phonemize's own)
/// and 1.52 (what piper-tts 1.8.0 and espeakng-loader bundle) where it differs. The tests compare with
/// the one made on the espeak-ng Chorus has loaded; on another version they say so and compare nothing.
enum FrontEndGoldens {
    static let folder = Bundle.module.url(forResource: "FrontEnd", withExtension: nil)!

    struct Sentence {
        var text: String
        var golden: [String: Any]
        /// piper-phonemize's espeak-ng (rhasspy's fork of 1.51) stresses a word of this sentence unlike
        /// Debian's 1.51; the front end cannot change what the library reads.
        var libraryDiffers: Bool
    }

    static func load(_ name: String) throws -> (document: [String: Any], sentences: [Sentence]) {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(document["sentences"] as? [[String: Any]])
        let key = versionKey
        return (document, try entries.map { entry in
            let text = try #require(entry["text"] as? String)
            let golden = try #require((entry[key ?? "1.51"] ?? entry["1.51"]) as? [String: Any])
            return Sentence(text: text, golden: golden,
                            libraryDiffers: key == "1.51" && entry["espeak_library_differs"] as? Bool == true)
        })
    }

    /// "1.51" or "1.52" for the loaded espeak-ng, nil for a version the goldens were not made on.
    static let versionKey: String? = {
        guard let version = try? EspeakPhonemizer.shared().version else { return nil }
        return ["1.51", "1.52"].first { version.hasPrefix($0) }
    }()

    static let versionComment: Comment =
        "the goldens were made on espeak-ng 1.51 and 1.52; this espeak-ng is another version"
}

@Suite(.enabled(if: FrontEndGoldens.versionKey != nil, FrontEndGoldens.versionComment))
struct FrontEndGoldenTests {
    @Test func corpusIsLargeAndPunctuated() throws {
        let (_, sentences) = try FrontEndGoldens.load("piper_en_us.json")
        #expect(sentences.count >= 200)
        #expect(sentences.filter { $0.text.contains("\"") || $0.text.contains("“") }.count >= 30)
        #expect(sentences.filter { $0.text.contains(where: \.isNumber) }.count >= 50)
        #expect(sentences.filter { $0.text.contains("...") || $0.text.contains("…") }.count >= 20)
    }

    @Test func piperSentencesAndIDsEqualPiperPhonemize() throws {
        let (document, sentences) = try FrontEndGoldens.load("piper_en_us.json")
        let map = try #require(document["phoneme_id_map"] as? [String: [Int]])
        var ids: [Unicode.Scalar: [Int64]] = [:]
        for (phoneme, values) in map where phoneme.unicodeScalars.count == 1 {
            ids[phoneme.unicodeScalars.first!] = values.map(Int64.init)
        }
        let encoder = PiperPhonemeEncoder(ids: ids)
        let phonemizer = try EspeakPhonemizer.shared()
        var equal = 0
        var libraryDiffers = 0
        for sentence in sentences {
            // piper-phonemize also returns sentences with no phonemes (after a closing quote at the end);
            // piper-tts skips them, and so does Chorus.
            let goldenSentences = try #require(sentence.golden["sentences"] as? [String])
            let goldenIDs = try #require(sentence.golden["ids"] as? [[Int]])
            let kept = zip(goldenSentences, goldenIDs).filter { !$0.0.isEmpty }
            let ours = PiperPhonemeEncoder.sentences(from: try phonemizer.phonemize(sentence.text, voice: "en-us"))
            let same = ours == kept.map(\.0) && ours.map(encoder.encode) == kept.map { $0.1.map(Int64.init) }
            if same { equal += 1 }
            if sentence.libraryDiffers {
                // Equal but for stress marks, the one thing the two libraries read differently here.
                func unstressed(_ text: String) -> String { text.filter { $0 != "ˈ" && $0 != "ˌ" } }
                #expect(ours.map(unstressed) == kept.map { unstressed($0.0) }, "\(sentence.text.debugDescription)")
                libraryDiffers += 1
                continue
            }
            #expect(ours == kept.map(\.0), "\(sentence.text.debugDescription)")
            #expect(ours.map(encoder.encode) == kept.map { $0.1.map(Int64.init) }, "\(sentence.text.debugDescription)")
        }
        // On Debian's 1.51: 233 of 235 equal; the other two differ only where the libraries do.
        #expect(equal + libraryDiffers == sentences.count)
        #expect(libraryDiffers <= 2)
    }

    @Test(arguments: ["us", "gb"])
    func kokoroPhonemesEqualMisakiEspeakFallback(language: String) throws {
        let (_, sentences) = try FrontEndGoldens.load("kokoro_en_\(language).json")
        let frontEnd = KokoroPhonemizer(espeakVoice: "en-\(language)", phonemizer: try EspeakPhonemizer.shared())
        var equal = 0
        for sentence in sentences {
            let golden = try #require(sentence.golden["phonemes"] as? String)
            let ours = try frontEnd.phonemes(for: sentence.text)
            #expect(ours == golden, "\(sentence.text.debugDescription)")
            if ours == golden { equal += 1 }
        }
        #expect(equal == sentences.count)
    }
}
