import Foundation
import Testing
@testable import ChorusKokoro
@testable import ChorusPiper
import ChorusSpeech

/// Speech heard as it is made starts with the first sentence (or its first clause when it is long);
/// a file keeps the whole-text pieces.
@Suite struct StreamedFirstPieceTests {
    static let threeSentences = "The lamp turned slowly. Sailors could see it from twenty miles away. "
        + "When the keeper retired, the town kept the light burning."
    static let longFirst = "Every night its lamp turned slowly over the harbour, sending a pale beam across the dark water "
        + "to the boats. They came home."

    @Test func kokoroAndPiperStreamsBeginWithTheFirstSentence() {
        for pieces in [KokoroSynthesizer.streamingPieces.pieces(of: Self.threeSentences, heardAsMade: true),
                       PiperSynthesizer.streamingPieces.pieces(of: Self.threeSentences, heardAsMade: true)] {
            #expect(pieces.first == "The lamp turned slowly. ")
            #expect(pieces.joined() == Self.threeSentences)
        }
        // The whole text, for a file, is one piece, as before.
        #expect(KokoroSynthesizer.streamingPieces.pieces(of: Self.threeSentences, heardAsMade: false) == [Self.threeSentences])
    }

    @Test func aLongFirstSentenceStartsWithItsFirstClause() {
        for pieces in [KokoroSynthesizer.streamingPieces.pieces(of: Self.longFirst, heardAsMade: true),
                       PiperSynthesizer.streamingPieces.pieces(of: Self.longFirst, heardAsMade: true)] {
            #expect(pieces.first == "Every night its lamp turned slowly over the harbour, ")
            #expect(pieces.joined() == Self.longFirst)
        }
    }

    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokorosFirstStreamedChunkSpeaksTheFirstSentence() async throws {
        let kokoro = try KokoroSynthesizer()
        var texts: [String?] = []
        for try await chunk in kokoro.stream(SynthesisRequest(text: Self.threeSentences)) {
            #expect(rms(chunk.samples) > 0.01)
            texts.append(chunk.text)
        }
        #expect(texts.first == "The lamp turned slowly. ")
        #expect(texts.count >= 2)
    }

    /// Before it has timed a call, Kokoro starts a long first sentence with as much as 2 cores make in time,
    /// cut between words; the rest follows in pieces no longer than the ramp allows, in order.
    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokorosFirstStreamedChunkIsPacedForTheMachine() async throws {
        let kokoro = try KokoroSynthesizer()
        var texts: [String] = []
        for try await chunk in kokoro.stream(SynthesisRequest(text: Self.longFirst)) { texts.append(chunk.text ?? "") }
        let first = try #require(texts.first)
        #expect(first == "Every night its lamp ")
        #expect(first.count <= KokoroSynthesizer.startingFirstLength)
        #expect(texts.joined() == Self.longFirst)
        // Now it has timed its calls, the next stream's first piece is what those times allow.
        let paced = kokoro.model.firstPiece!.firstLength(longest: KokoroSynthesizer.streamingPieces.firstLength)
        var next: String?
        for try await chunk in kokoro.stream(SynthesisRequest(text: Self.longFirst)) where next == nil { next = chunk.text }
        #expect(next.map { $0.count <= max(paced, 16) + 1 && Self.longFirst.hasPrefix($0) } == true)
    }

    @Test(.enabled(if: InstalledModels.piper, InstalledModels.reason))
    func pipersFirstStreamedChunkSpeaksTheFirstClauseWithoutASentencePause() async throws {
        let piper = try PiperSynthesizer()
        var chunks: [AudioChunk] = []
        for try await chunk in piper.stream(SynthesisRequest(text: Self.longFirst)) { chunks.append(chunk) }
        #expect(chunks.first?.text == "Every night its lamp turned slowly over the harbour, ")
        // The clause runs on into the rest of its sentence: its end is the model's, not the exact zeros of
        // the pause between sentences.
        let tail = try #require(chunks.first?.samples.suffix(Int(0.15 * Double(piper.sampleRate))))
        #expect(tail.contains { $0 != 0 })
    }
}
