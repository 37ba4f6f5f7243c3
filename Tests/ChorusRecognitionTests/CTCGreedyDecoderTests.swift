import Testing
@testable import ChorusRecognition

@Suite struct CTCGreedyDecoderTests {
    /// One-hot frames (score 1 for the class, 0 elsewhere) for `classes` classes.
    static func frames(_ best: [Int], classes: Int) -> [Float] {
        best.flatMap { id in (0..<classes).map { $0 == id ? Float(1) : 0 } }
    }

    @Test func collapsesRepeatsAndDropsBlankLast() {
        var decoder = CTCGreedyDecoder.blankLast(vocabularySize: 4)
        let tokens = decoder.decode(scores: Self.frames([4, 1, 1, 4, 1, 2, 2, 4, 4, 3], classes: 5), classes: 5)
        #expect(tokens.map(\.id) == [1, 1, 2, 3])
        #expect(tokens.map(\.frame) == [1, 4, 5, 9])
        #expect(tokens.allSatisfy { $0.score == 1 })
    }

    @Test func blankFirst() {
        var decoder = CTCGreedyDecoder(blank: 0)
        #expect(decoder.decode(bestClasses: [0, 3, 3, 0, 0, 3, 1]).map(\.id) == [3, 3, 1])
    }

    @Test func streamsAcrossChunks() {
        var decoder = CTCGreedyDecoder(blank: 0)
        let first = decoder.decode(scores: Self.frames([2, 2], classes: 3), classes: 3)
        let second = decoder.decode(scores: Self.frames([2, 0, 2], classes: 3), classes: 3)
        #expect(first.map(\.frame) == [0])
        #expect(second.map(\.id) == [2])
        #expect(second.map(\.frame) == [4])
        decoder.reset()
        #expect(decoder.decode(bestClasses: [2]).map(\.frame) == [0])
    }

    @Test func tiesGoToTheLowerClass() {
        var decoder = CTCGreedyDecoder(blank: 2)
        #expect(decoder.decode(scores: [0.5, 0.5, 0.1], classes: 3).map(\.id) == [0])
    }
}
