import Foundation
import Testing
@testable import ChorusText

/// Exact equality with Hugging Face `tokenizers` over the whole corpus (scripts/testdata/make_tokenizer_golden.py),
/// and decode(encode(x)) == x byte for byte.
@Suite struct BPECorpusTests {
    static let documents: [String] = {
        // Split as bytes: far quicker than splitting a 2 MB String by Character in a debug build.
        let corpus = try! Data(contentsOf: TestData.url("corpus.txt"))
        return corpus.split(separator: 0x1E, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }()

    @Test func corpusIsLargeAndMixed() {
        let bytes = Self.documents.reduce(0) { $0 + $1.utf8.count }
        #expect(bytes >= 1_000_000)
        #expect(Self.documents.count == 817)
    }

    @Test(arguments: ["qwen2", "gpt2"])
    func matchesTokenizersOnCorpus(name: String) throws {
        let tokenizer = name == "qwen2" ? TestData.qwen2 : TestData.gpt2
        let golden = try String(contentsOf: TestData.url("corpus.\(name).golden"), encoding: .utf8)
            .split(separator: "\n").map { line in
                let fields = line.split(separator: " ")
                return (Int(fields[0])!, UInt64(fields[1], radix: 16)!)
            }
        #expect(golden.count == Self.documents.count)
        var mismatches: [Int] = []
        var roundTripFailures: [Int] = []
        var tokens = 0
        for (index, (document, expected)) in zip(Self.documents, golden).enumerated() {
            let ids = try tokenizer.encode(document)
            tokens += ids.count
            if ids.count != expected.0 || Self.fnv1a(ids) != expected.1 { mismatches.append(index) }
            if try !tokenizer.bytes(of: ids).elementsEqual(document.utf8) { roundTripFailures.append(index) }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.count) documents differ, first \(mismatches.prefix(5))")
        #expect(roundTripFailures.isEmpty, "\(name): round trip fails for documents \(roundTripFailures.prefix(5))")
        #expect(tokens == golden.reduce(0) { $0 + $1.0 })
    }

    /// FNV-1a 64 over the ids as little-endian 32-bit integers, as the golden files hash them.
    static func fnv1a(_ ids: [Int]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for id in ids {
            var value = UInt32(id)
            for _ in 0..<4 {
                hash = (hash ^ UInt64(value & 0xFF)) &* 0x0000_0100_0000_01B3
                value >>= 8
            }
        }
        return hash
    }
}
