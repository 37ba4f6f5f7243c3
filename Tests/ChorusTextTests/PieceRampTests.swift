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

    /// With no clause ending in time, the cut comes before a joining word, not just anywhere between words.
    @Test func aLongFirstClauseIsCutBeforeAJoiningWord() {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century and then some more."
        #expect(ramp.split(text).first == "The old lighthouse stood at the edge ")
        // A sentence barely longer than the first piece's limit is not cut off a word or two before its end.
        #expect(ramp.split("Lighthouse keepers often worked all night.").count == 1)
    }

    /// After the first, each piece is whole sentences, at most `growth` times all the text before it (or
    /// one sentence when a single one is longer), never more than `maxLength`.
    @Test func laterPiecesGrowWithTheTextBeforeThemUpToTheLimit() {
        let sentence = "The keeper wrote only three words. "
        let text = String(repeating: sentence, count: 20)
        let pieces = ramp.split(text)
        #expect(pieces.joined() == text)
        #expect(pieces[0] == sentence)
        var spoken = 0
        for piece in pieces {
            if spoken > 0 { #expect(piece.count == sentence.count || Double(piece.count) <= max(40, 1.5 * Double(spoken))) }
            #expect(piece.count <= 120)
            #expect(piece.hasSuffix(". "))
            spoken += piece.count
        }
        #expect(pieces.map(\.count) == [35, 35, 105, 105, 105, 105, 105, 105])
    }

    /// A sentence longer than its piece may be is cut too, so a short first piece is not followed by a
    /// whole long sentence the listener would wait for.
    @Test func aSentenceLongerThanItsPieceMayBeIsCut() {
        let short = PieceRamp(firstLength: 20, growth: 0.5, maxLength: 300)
        let text = "The old lighthouse stood at the edge of the cliff for more than a century. "
            + "Every night its lamp turned slowly, sending a pale beam across the dark water. Sailors saw it."
        let pieces = short.split(text)
        #expect(pieces.joined() == text)
        #expect(pieces.first == "The old lighthouse ")
        var spoken = 0
        for (index, piece) in pieces.enumerated() {
            // Within the bound, or a rest too short to leave on its own (a fifth of the piece's limit).
            let budget = max(20, Int(0.5 * Double(spoken)))
            if index > 0 { #expect(piece.count <= budget + budget / 5, "piece \(index) '\(piece)' over \(budget)") }
            spoken += piece.count
        }
        #expect(pieces.count > 4)
        // Cuts fall between words, at clause ends or before joining words where there are some.
        #expect(pieces.contains("Every night its lamp turned slowly, "))
        #expect(pieces.allSatisfy { $0.last == " " || $0 == pieces.last })
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
