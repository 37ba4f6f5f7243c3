@testable import ChorusText
import Testing

@Suite struct SentenceSegmenterTests {
    private func segment(_ pieces: [String], maximumLength: Int = 300) -> [String] {
        var segmenter = SentenceSegmenter(maximumLength: maximumLength)
        return pieces.flatMap { segmenter.append($0) } + segmenter.finish()
    }

    @Test func sentencesEndOnlyWhenWhitespaceFollows() {
        var segmenter = SentenceSegmenter()
        #expect(segmenter.append("Pi is 3.").isEmpty)
        #expect(segmenter.append("14 or so. And").isEmpty == false)
        #expect(segmenter.finish() == ["And"])
        #expect(segment(["Pi is 3.", "14 or so. And"]) == ["Pi is 3.14 or so.", "And"])
    }

    @Test func piecesSplitAnywhereGiveTheSameSentences() {
        let text = "Hello there! How are you?  I'm fine... thanks. \"Quoted.\" Next line\nLast one"
        let expected = ["Hello there!", "How are you?", "I'm fine...", "thanks.", "\"Quoted.\"", "Next line", "Last one"]
        #expect(segment([text]) == expected)
        for size in 1...7 {
            let characters = Array(text)
            let pieces = stride(from: 0, to: characters.count, by: size).map {
                String(characters[$0..<min($0 + size, characters.count)])
            }
            #expect(segment(pieces) == expected, "pieces of \(size)")
        }
    }

    @Test func fullWidthMarksEndAtOnce() {
        var segmenter = SentenceSegmenter()
        #expect(segmenter.append("こんにちは。元気") == ["こんにちは。"])
        #expect(segmenter.finish() == ["元気"])
    }

    /// Abbreviations, initials and numbers do not end a sentence, as in `SentenceChunker`.
    @Test func abbreviationsInitialsAndNumbersStayInTheirSentence() {
        #expect(segment(["Dr. Smith met J. Doe at 3.30, e.g. before noon. He left."])
            == ["Dr. Smith met J. Doe at 3.30, e.g. before noon.", "He left."])
    }

    /// Every sentence end the whole-text splitter finds, the segmenter finds, however the text arrives.
    @Test func theSentencesAreTheChunkersSentences() {
        let text = "It was late, and the lamp turned. \"Who's there?\" she asked... Nobody answered!\nThe fog came at 4.30 p.m. today."
        let chunker = SentenceChunker(maxLength: 300).split(text).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        for size in [1, 2, 3, 5, 8, text.count] {
            #expect(segment(pieces(of: text, size: size)) == chunker, "pieces of \(size)")
        }
    }

    private func pieces(of text: String, size: Int) -> [String] {
        let characters = Array(text)
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
    }

    private func firstPieces(_ pieces: [String], length: Int = 40) -> [String] {
        var segmenter = SentenceSegmenter(firstPieceLength: length)
        return pieces.flatMap { segmenter.append($0) } + segmenter.finish()
    }

    /// A long first sentence is cut where `PieceRamp` cuts an engine's first piece, wherever the text is split.
    @Test func aLongFirstSentenceIsCutWherePieceRampCutsIt() {
        let texts = [
            "The old lighthouse stood at the edge of the cliff for more than a century. Every night, it shone.",
            "Every night its lamp turned slowly, sending a pale beam across the dark water. Then it stopped.",
            "Yes, the 3,000 sailors said they could see it from twenty miles away, even in a storm.",
            "今日はとても良い天気ですね、散歩に行きましょう。それから帰ります。",
        ]
        let ramp = PieceRamp(firstLength: 40, maxLength: 300)
        for text in texts {
            let first = ramp.split(text)[0].trimmingCharacters(in: .whitespaces)
            for size in [1, 2, 3, 7, text.count] {
                let got = firstPieces(pieces(of: text, size: size))
                #expect(got.first == first, "pieces of \(size): \(got)")
                #expect(got.joined(separator: " ").filter { !$0.isWhitespace } == text.filter { !$0.isWhitespace })
            }
        }
    }

    @Test func shortFirstSentencesAreNotCut() {
        let text = "Hello there. The old lighthouse stood at the edge of the cliff for more than a century."
        #expect(firstPieces([text]) == ["Hello there.", "The old lighthouse stood at the edge of the cliff for more than a century."])
        // Barely longer than the first piece: not cut a word or two before its end.
        #expect(firstPieces(["Lighthouse keepers often worked all night."]) == ["Lighthouse keepers often worked all night."])
    }

    /// Word by word, as an LLM sends it, the first piece goes before its sentence has ended: once a fifth
    /// more than the first piece has arrived.
    @Test func theFirstPieceGoesBeforeItsSentenceEnds() {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century. Every night, it shone."
        var segmenter = SentenceSegmenter(firstPieceLength: 40)
        let words = text.split(separator: " ").map { $0 + " " }
        let handedOnAt = words.indices.first { !segmenter.append(String(words[$0])).isEmpty }
        let sentenceEnd = words.firstIndex { $0.contains(".") }!
        #expect(handedOnAt != nil && handedOnAt! < sentenceEnd)
    }

    @Test func overlongTextIsCutAtAClauseOrASpace() {
        #expect(segment(["one two, three four five six"], maximumLength: 12) == ["one two,", "three four", "five six"])
        #expect(segment(["abcdefghij"], maximumLength: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func whitespaceAloneSaysNothing() {
        #expect(segment(["  ", "\n\n", " "]).isEmpty)
    }
}
