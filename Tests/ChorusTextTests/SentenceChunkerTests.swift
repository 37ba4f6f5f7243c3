import ChorusDSP
import Testing
@testable import ChorusText

@Suite struct SentenceChunkerTests {
    @Test func splitsAtSentenceEnds() {
        let chunker = SentenceChunker(maxLength: 100)
        #expect(chunker.split("Hello there. How are you? Fine!") == ["Hello there. ", "How are you? ", "Fine!"])
        #expect(chunker.split("你好。今天天气很好！我们走吧？") == ["你好。", "今天天气很好！", "我们走吧？"])
        #expect(chunker.split("他说：“走吧。”然后走了。") == ["他说：“走吧。”", "然后走了。"])
        #expect(chunker.split("Wait... what?! Yes.") == ["Wait... ", "what?! ", "Yes."])
    }

    @Test func keepsNumbersAndAbbreviationsWhole() {
        let chunker = SentenceChunker(maxLength: 100)
        #expect(chunker.split("Pi is 3.14, and 1,000 is 12:30. Dr. Smith agrees.") ==
            ["Pi is 3.14, and 1,000 is 12:30. ", "Dr. Smith agrees."])
        #expect(chunker.split("See e.g. the list. Then go.") == ["See e.g. the list. ", "Then go."])
        #expect(chunker.split("圆周率是３．１４，人口１，０００万。好。") == ["圆周率是３．１４，人口１，０００万。", "好。"])
        #expect(chunker.split("价格是3.5元。") == ["价格是3.5元。"])
    }

    @Test func packsSentencesWhenAsked() {
        let chunker = SentenceChunker(maxLength: 20, packsSentences: true)
        #expect(chunker.split("One. Two. Three. Four five six.") == ["One. Two. Three. ", "Four five six."])
    }

    @Test func fallsBackToClausesThenWords() {
        let chunker = SentenceChunker(maxLength: 20)
        #expect(chunker.split("First part, second part, third part here.") ==
            ["First part, ", "second part, ", "third part here."])
        #expect(chunker.split("one two three four five six seven") == ["one two three four ", "five six seven"])
        #expect(SentenceChunker(maxLength: 6).split("我们今天去公园，然后回家。") == ["我们今天去公", "园，", "然后回家。"])
    }

    @Test func aWordLongerThanAPieceIsCutBetweenCharacters() {
        let chunker = SentenceChunker(maxLength: 5)
        #expect(chunker.split("a supercalifragilistic b") == ["a ", "super", "calif", "ragil", "istic", " ", "b"])
        #expect(chunker.split("1234567890") == ["12345", "67890"])
        #expect(SentenceChunker(maxLength: 21).split("one supercalifragilistic two") == ["one ", "supercalifragilistic ", "two"])
    }

    @Test(arguments: ["a", "é", "👩‍👩‍👧", "語"])
    func oneHugeWordBecomesPiecesOfTheLimit(letter: String) {
        // 30,000 characters with no space or punctuation, as a hostile text to a phoneme engine.
        let text = String(repeating: letter, count: 30_000)
        let pieces = SentenceChunker(maxLength: 400, packsSentences: true).split(text)
        #expect(pieces.joined() == text)
        #expect(pieces.count == 75)
        #expect(pieces.allSatisfy { $0.count <= 400 })
        let tokenLike = SentenceChunker.Measure { $0.utf8.count }
        #expect(SentenceChunker(maxLength: 1_000, measure: tokenLike).split(text).allSatisfy { $0.utf8.count <= 1_000 })
    }

    @Test func lineBreaksEndSentences() {
        let chunker = SentenceChunker(maxLength: 100)
        #expect(chunker.split("Title\n\nBody text") == ["Title\n\n", "Body text"])
        #expect(chunker.split("") == [])
        #expect(chunker.split("   ") == ["   "])
    }

    @Test func customMeasure() {
        let words = SentenceChunker.Measure { $0.split(separator: " ").count }
        let chunker = SentenceChunker(maxLength: 3, measure: words)
        #expect(chunker.split("a b c d e f g") == ["a b c ", "d e f ", "g"])
    }

    @Test func piecesRecoverTheTextAndRespectTheLimit() {
        var generator = SeededRandom(seed: 7)
        let atoms = ["Hello", "world", "3.14", "1,000", "。", "，", "、", "！", "？", "；", ". ", ", ", "! ",
                     "? ", " ", "  ", "\n", "你好", "天气", "廣東話", "😀", "👩‍👩‍👧", "e.g.", "(", ")", "“", "”",
                     "supercalifragilistic", "é", "ｶﾞ", "１２"]
        for _ in 0..<300 {
            let count = Int(generator.next() % 60)
            let text = (0..<count).map { _ in atoms[Int(generator.next() % UInt64(atoms.count))] }.joined()
            for limit in [1, 4, 12, 40] {
                let chunker = SentenceChunker(maxLength: limit)
                let pieces = chunker.split(text)
                #expect(pieces.joined() == text)
                #expect(!pieces.contains(""))
                for piece in pieces {
                    #expect(piece.count <= limit, "\(limit) \(piece.debugDescription) in \(text.debugDescription)")
                }
            }
        }
    }
}

@Suite struct TextNormalizerTests {
    @Test func collapsesWhitespace() {
        let normalizer = TextNormalizer()
        #expect(normalizer.normalize("  a \t b\n\n c  ") == "a b\nc")
    }

    @Test func foldsWidths() {
        #expect(TextNormalizer().normalize("ＡＢ１２，ｶﾞｷﾞ") == "AB12，ガギ")
        #expect(TextNormalizer(fullWidth: .all).normalize("Ａ，Ｂ！\u{3000}") == "A,B!")
        #expect(TextNormalizer(collapsesWhitespace: false, fullWidth: .none).normalize("Ａ  ｶ") == "Ａ  カ")
    }
}

@Suite struct TokenMeasureTests {
    @Test func chunksByTokens() throws {
        let chunker = SentenceChunker(maxLength: 8, measure: .tokens(of: TestData.gpt2))
        let text = "The quick brown fox jumps over the lazy dog. It was not amused, and said so at length."
        let pieces = chunker.split(text)
        #expect(pieces.joined() == text)
        for piece in pieces { #expect(try TestData.gpt2.encode(piece).count <= 8, "\(piece)") }
    }
}
