@testable import Streaming
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

    @Test func overlongTextIsCutAtAClauseOrASpace() {
        #expect(segment(["one two, three four five six"], maximumLength: 12) == ["one two,", "three four", "five six"])
        #expect(segment(["abcdefghij"], maximumLength: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func whitespaceAloneSaysNothing() {
        #expect(segment(["  ", "\n\n", " "]).isEmpty)
    }
}
