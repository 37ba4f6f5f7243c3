import ChorusText
import Foundation
import Testing
@testable import ChorusCosyVoice

/// Issue 41, item 2: 4 KB of numbers spelt out to one sentence of thousands of tokens, which upstream's splitter
/// keeps whole, and the LLM sized its cache for twenty times that many speech tokens (+2.5 GB, or a failed 7 GB
/// allocation, per request). Every piece now stays within three times `maximumLength` tokens (a sentence is cut
/// past `longestSentence`, and a piece closes past `maximumLength` once it holds `minimumLength`), whatever the
/// text; nothing is dropped.
@Suite struct PieceBoundTests {
    static let texts: [String] = [
        String(repeating: "50% ", count: 1_000), String(repeating: "1", count: 4_000), String(repeating: "2024-01-02 ", count: 360),
        String(repeating: "\u{FF11}", count: 4_000), String(repeating: "$1", count: 1_000), String(repeating: "1/2 ", count: 1_000),
        String(repeating: "word ", count: 800), String(repeating: "字", count: 4_000),
    ]

    static func check(_ normalizer: CosyVoiceTextNormalizer, _ text: String) throws {
        let pieces = try normalizer.pieces(of: text)
        let lengths = try pieces.map { piece -> Int in
            CosyVoiceTextNormalizer.containsChinese(Array(text.unicodeScalars))
                ? piece.unicodeScalars.count : try FrontendGolden.tokenizer.encode(piece).count
        }
        #expect(lengths.allSatisfy { $0 <= 3 * CosyVoiceTextNormalizer.maximumLength }, "\(text.prefix(12)): \(lengths.max() ?? 0)")
        // The pieces are the normalised text cut, nothing left out.
        let whole = try normalizer.normalized(text).unicodeScalars.filter { !$0.properties.isWhitespace }
        let joined = pieces.joined().unicodeScalars.filter { !$0.properties.isWhitespace }
        #expect(joined.count >= whole.count, "\(text.prefix(12))")
    }

    @Test(arguments: 0..<8)
    func everyPieceFitsWithoutWeText(index: Int) throws {
        try Self.check(CosyVoiceTextNormalizer(wetext: nil, tokenizer: FrontendGolden.tokenizer), Self.texts[index])
    }

    @Test(.enabled(if: FrontendGolden.wetextInstalled, "wetext grammars not installed; run scripts/setup.sh"), arguments: 0..<8)
    func everyPieceFitsWithWeText(index: Int) throws {
        try Self.check(CosyVoiceTextNormalizer(wetext: FrontendGolden.wetext, tokenizer: FrontendGolden.tokenizer), Self.texts[index])
    }
}
