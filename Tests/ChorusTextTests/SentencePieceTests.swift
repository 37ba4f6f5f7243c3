import Foundation
import Testing
@testable import ChorusText

@Suite struct SentencePieceTests {
    static let models = [
        "botchan_en_bpe_1000", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000",
        "botchan_bpe_bytes_600", "botchan_unigram_identity_600",
    ]

    static func tokenizer(_ name: String) throws -> SentencePieceTokenizer {
        try SentencePieceTokenizer(contentsOf: TestData.url("sentencepiece/\(name).model"))
    }

    @Test(arguments: models)
    func matchesSentencePieceOnCases(name: String) throws {
        let tokenizer = try Self.tokenizer(name)
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: TestData.url("sentencepiece/cases.json")))
        let cases = (all as! [String: Any])["\(name).model"] as! [[String: Any]]
        for entry in cases {
            let text = entry["text"] as! String
            let ids = entry["ids"] as! [Int]
            #expect(try tokenizer.encode(text) == ids, "\(name): \(text.debugDescription)")
            #expect(try tokenizer.decode(ids) == entry["decoded"] as! String, "\(name): \(text.debugDescription)")
        }
    }

    /// Debug builds check every fourth document to keep `swift test` quick; release builds, or
    /// CHORUS_FULL_CORPUS=1, check them all.
    static let documentStride: Int = {
        if ProcessInfo.processInfo.environment["CHORUS_FULL_CORPUS"] == "1" { return 1 }
        #if DEBUG
        return 4
        #else
        return 1
        #endif
    }()

    @Test(arguments: models)
    func matchesSentencePieceOnCorpus(name: String) throws {
        let tokenizer = try Self.tokenizer(name)
        let golden = try String(contentsOf: TestData.url("sentencepiece/\(name).golden"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ") }
        let documents = BPECorpusTests.documents
        #expect(golden.count == documents.count)
        var encodeMismatches: [Int] = []
        var decodeMismatches: [Int] = []
        for (index, (document, expected)) in zip(documents, golden).enumerated()
        where index % Self.documentStride == 0 {
            let ids = try tokenizer.encode(document)
            if ids.count != Int(expected[0])! || BPECorpusTests.fnv1a(ids) != UInt64(expected[1], radix: 16)! {
                encodeMismatches.append(index)
            }
            let decoded = try tokenizer.decode(ids)
            if Self.fnv1a(bytes: Array(decoded.utf8)) != UInt64(expected[2], radix: 16)! { decodeMismatches.append(index) }
        }
        #expect(encodeMismatches.isEmpty, "\(name): \(encodeMismatches.count) documents encode differently, first \(encodeMismatches.prefix(5))")
        #expect(decodeMismatches.isEmpty, "\(name): \(decodeMismatches.count) documents decode differently, first \(decodeMismatches.prefix(5))")
    }

    static func fnv1a(bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
