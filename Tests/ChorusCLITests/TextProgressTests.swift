@testable import ChorusCLI
import Testing

@Suite struct TextProgressTests {
    @Test func aPieceNamedOnManyChunksCountsOnce() {
        let pieces = [String(repeating: "One sentence here. ", count: 10), String(repeating: "Another one there. ", count: 10),
                      "And the end."]
        var progress = TextProgress(text: pieces.joined())
        var seen: [Int] = []
        for piece in pieces {
            // An engine yields a chunk per sentence (Piper, Kokoro) or per streamed part (CosyVoice), each naming its piece.
            for _ in 0..<12 {
                progress.advance(past: piece)
                seen.append(progress.percent)
            }
        }
        #expect(seen[11] == 100 * pieces[0].count / pieces.joined().count)   // under half, not 100% after the first piece
        #expect(seen[23] < 100)
        #expect(seen.last == 100)
        #expect(seen == seen.sorted())
    }

    @Test func repeatedAndRewrittenPiecesStillMoveForward() {
        var progress = TextProgress(text: "Yes. Yes. 3 cats.")
        progress.advance(past: "Yes. ")
        progress.advance(past: nil)
        #expect(progress.consumed == 5)
        progress.advance(past: "Yes. ")      // the same piece again is the same chunk's piece
        #expect(progress.consumed == 5)
        progress.advance(past: "three cats.")  // rewritten by normalisation: its length counts
        #expect(progress.consumed == 16)
        #expect(progress.percent == 94)
    }
}
