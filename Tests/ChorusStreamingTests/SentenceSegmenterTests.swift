@testable import ChorusStreaming
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

    private func firstPieces(_ pieces: [String]) -> [String] {
        var segmenter = SentenceSegmenter(firstPiece: SentenceSegmenter.FirstPiece(minimumWords: 4, maximumWords: 8))
        return pieces.flatMap { segmenter.append($0) } + segmenter.finish()
    }

    @Test func aLongFirstSentenceIsCutBeforeAJoiningWordAndLaterOnesStayWhole() {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century. "
            + "Every night its lamp turned slowly, sending a pale beam across the dark water."
        #expect(firstPieces([text]) == [
            "The old lighthouse stood at the edge", "of the cliff for more than a century.",
            "Every night its lamp turned slowly, sending a pale beam across the dark water.",
        ])
    }

    @Test func theFirstSentenceIsCutAfterAClauseMarkThatEndsWordFourToEight() {
        #expect(firstPieces(["When the keeper retired, the town decided to keep the light burning anyway."])
            == ["When the keeper retired,", "the town decided to keep the light burning anyway."])
        // "Yes," is too short a piece, "3,000" is a number, and no joining word comes in time: cut after word eight.
        #expect(firstPieces(["Yes, the 3,000 sailors said they could see it from twenty miles away, even in a storm."])
            == ["Yes, the 3,000 sailors said they could see", "it from twenty miles away, even in a storm."])
        #expect(firstPieces(["今日はとても良い天気ですね、散歩に行きましょう。"]) == ["今日はとても良い天気ですね、", "散歩に行きましょう。"])
    }

    @Test func shortFirstSentencesAreNotCut() {
        let text = "Hello there. The old lighthouse stood at the edge of the cliff for more than a century."
        #expect(firstPieces([text]) == ["Hello there.", "The old lighthouse stood at the edge of the cliff for more than a century."])
        #expect(firstPieces(["Every night its lamp turned slowly over the water."]) == ["Every night its lamp turned slowly over the water."])
    }

    @Test func theFirstPieceGoesAsSoonAsItsCutIsKnownWhereverTheTextIsSplit() {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century. Every night, it shone."
        let expected = ["The old lighthouse stood at the edge", "of the cliff for more than a century.", "Every night, it shone."]
        for size in 1...9 {
            let characters = Array(text)
            let pieces = stride(from: 0, to: characters.count, by: size).map {
                String(characters[$0..<min($0 + size, characters.count)])
            }
            #expect(firstPieces(pieces) == expected, "pieces of \(size)")
        }
        // Word by word, as an LLM sends it: the cut is known once word twelve has begun, before the sentence ends.
        var segmenter = SentenceSegmenter(firstPiece: SentenceSegmenter.FirstPiece())
        let words = text.split(separator: " ").map { $0 + " " }
        let handedOnAt = words.indices.first { !segmenter.append(String(words[$0])).isEmpty }
        #expect(handedOnAt == 11)
    }

    @Test func overlongTextIsCutAtAClauseOrASpace() {
        #expect(segment(["one two, three four five six"], maximumLength: 12) == ["one two,", "three four", "five six"])
        #expect(segment(["abcdefghij"], maximumLength: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func whitespaceAloneSaysNothing() {
        #expect(segment(["  ", "\n\n", " "]).isEmpty)
    }
}
