import ChorusModels
import Foundation
import Testing
@testable import ChorusText

/// Issue 41, item 2: every text front end is bounded in memory during its work, not only before the model.
/// wetext's one-best search holds every composed state it reaches, about 180 per byte of input on texts of
/// numbers: 735,495 states for the tagger on 4 KB of "50% ", held at once. The normaliser now searches pieces of
/// at most `WeTextNormalizer.pieceBytes`, so no search passes `largestSearch` below whatever the text's length,
/// and a search stops at `WeightedFST.defaultMaximumSearchStates` whatever its input. The count is the search's
/// memory (about 60 bytes a state), not a clock.
@Suite("wetext bounded on texts of numbers", .enabled(if: InstalledWeText.installed, InstalledWeText.reason))
struct WeTextBoundTests {
    static let texts: [(name: String, text: String)] = [
        ("\"50% \" x 1000", String(repeating: "50% ", count: 1_000)),
        ("\"1\" x 4000", String(repeating: "1", count: 4_000)),
        ("\"2024-01-02 \" x 360", String(repeating: "2024-01-02 ", count: 360)),
        ("4000 full-width digits", String(repeating: "\u{FF11}", count: 4_000)),
        ("\"$1\" x 1000", String(repeating: "$1", count: 1_000)),
        ("\"1/2 \" x 1000", String(repeating: "1/2 ", count: 1_000)),
    ]

    /// The most composed states one search of a piece makes on these texts (measured: at most 76,350, on
    /// `"1" x 4000`; see docs/measured.md).
    static let largestSearch = 100_000

    @Test("each text normalises in searches under the bound", arguments: 0..<6)
    func everySearchStaysUnderTheBound(index: Int) throws {
        let (name, text) = Self.texts[index]
        let normalizer = try #require(InstalledWeText.normalizer)
        var largest = 0
        let output = try normalizer.normalize(text, largestSearch: &largest)
        print("wetext on \(name): largest search \(largest) states, \(text.utf8.count) bytes in, \(output.utf8.count) out")
        #expect(largest <= Self.largestSearch, "\(name)")
        #expect(!output.isEmpty)
    }

    /// What main did: one search over the whole text, which on the 4 KB text passes the bound a piece stays under,
    /// and a search stops at its own bound rather than allocating on.
    @Test func oneSearchOverTheWholeTextPassesTheBound() throws {
        let normalizer = try #require(InstalledWeText.normalizer)
        let text = Array(Self.texts[0].text.utf8)
        #expect(throws: WeightedFSTError.self) { _ = try normalizer.english.tagger.search(text, maximumStates: Self.largestSearch) }
        #expect(try normalizer.english.tagger.search(text, maximumStates: 10 * Self.largestSearch).states > 7 * Self.largestSearch)
    }

    /// Pieces are cut at a sentence end, else a space, else between characters that are not both digits, else
    /// anywhere; text within the size is one piece, as wetext takes it.
    @Test func piecesAreCutWhereTheTextAllowsIt() {
        func cut(_ text: String, _ bytes: Int) -> [String] { WeTextNormalizer.pieces(of: text, maximumBytes: bytes).map(\.piece) }
        #expect(cut("One. Two three. Four", 16) == ["One. Two three.", "Four"])
        #expect(cut("one two three four", 10) == ["one two", "three four"])
        #expect(cut("你好。世界你好。再见", 18) == ["你好。", "世界你好。", "再见"])
        #expect(cut("$1$1$1", 4) == ["$1$1", "$1"])
        #expect(cut("12345678", 3) == ["123", "456", "78"])
        #expect(cut("short", 256) == ["short"])
        #expect(WeTextNormalizer.pieces(of: "a b", maximumBytes: 1).map(\.joiner) == [" ", ""])
    }
}
