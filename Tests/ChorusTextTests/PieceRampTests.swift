import ChorusText
import Testing

@Suite struct PieceRampTests {
    let ramp = PieceRamp(firstLength: 40, growth: 1.5, maxLength: 120)

    @Test func theFirstPieceIsTheFirstSentenceWhenItIsShort() {
        let text = "It was late. The lamp turned slowly over the dark water. Sailors saw it from far away. Then came the fog."
        let pieces = ramp.split(text)
        #expect(pieces.first == "It was late. ")
        #expect(pieces.joined() == text)
    }

    @Test func aLongFirstSentenceStartsWithItsFirstClause() {
        let text = "Every night its lamp turned slowly, sending a pale beam across the dark water. Then it stopped."
        let pieces = ramp.split(text)
        #expect(pieces.first == "Every night its lamp turned slowly, ")
        #expect(pieces.joined() == text)
    }

    @Test func aLongFirstClauseIsCutBetweenWords() {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century and then some more."
        let first = ramp.split(text)[0]
        #expect(first.count <= 40 && first.hasSuffix(" ") && text.hasPrefix(first))
    }

    /// After the first, each piece is whole sentences, at most `growth` times the piece before it (or one
    /// sentence when a single one is longer), never more than `maxLength`.
    @Test func laterPiecesGrowByAtMostTheGrowthUpToTheLimit() {
        let sentence = "The keeper wrote only three words. "
        let text = String(repeating: sentence, count: 20)
        let pieces = ramp.split(text)
        #expect(pieces.joined() == text)
        #expect(pieces[0] == sentence)
        for (before, piece) in zip(pieces, pieces.dropFirst()) {
            #expect(Double(piece.count) <= max(Double(before.count) * 1.5, Double(sentence.count)) + 0.5)
            #expect(piece.count <= 120)
            #expect(piece.hasSuffix(". "))
        }
        #expect(pieces.count > 3 && pieces.count < 20)
    }

    @Test func emptyTextHasNoPieces() {
        #expect(ramp.split("").isEmpty)
        #expect(ramp.split("One.") == ["One."])
    }

    @Test func sentenceEndsAreToldFromClauseCuts() {
        #expect(PieceRamp.endsSentence("It was late. "))
        #expect(PieceRamp.endsSentence("\"Is it?\" "))
        #expect(!PieceRamp.endsSentence("Every night its lamp turned slowly, "))
        #expect(!PieceRamp.endsSentence("the edge of the "))
    }
}
