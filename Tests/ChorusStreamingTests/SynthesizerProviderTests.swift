import Foundation
import ChorusSpeech
@testable import ChorusStreaming
import ChorusTesting
import Testing

@Suite struct SynthesizerProviderTests {
    private func text(_ pieces: [String]) -> AsyncStream<String> {
        AsyncStream { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
    }

    @Test func speaksSentenceBySentenceAsFloat32AtTheEngineRate() async throws {
        let synthesizer = FakeSynthesizer()
        let provider = SynthesizerProvider(synthesizer: synthesizer, voice: "plain", speed: 1.25)
        #expect(provider.outputFormat == AudioFormat(sampleRate: 16_000, channels: 1, encoding: .float32))
        var bytes = Data()
        for try await piece in provider.stream(text: text(["Hello the", "re. How are", " you? Fine"])) {
            bytes.append(piece)
        }
        #expect(synthesizer.requests == ["Hello there.", "How are you?", "Fine"])
        let expected = ["Hello there.", "How are you?", "Fine"].flatMap(FakeSynthesizer.samples(for:))
        #expect(bytes == float32Bytes(expected))
    }

    @Test func aLongFirstSentenceIsSpokenInTwoPiecesUnlessTurnedOff() async throws {
        let text = "The old lighthouse stood at the edge of the cliff for more than a century. It still shines."
        let synthesizer = FakeSynthesizer()
        for try await _ in SynthesizerProvider(synthesizer: synthesizer).stream(text: self.text([text])) {}
        #expect(synthesizer.requests == ["The old lighthouse stood at the edge", "of the cliff for more than a century.", "It still shines."])
        let whole = FakeSynthesizer()
        for try await _ in SynthesizerProvider(synthesizer: whole, firstPiece: nil).stream(text: self.text([text])) {}
        #expect(whole.requests == ["The old lighthouse stood at the edge of the cliff for more than a century.", "It still shines."])
    }

    @Test func synthesisIsPulledSoBackpressureReachesTheEngine() async throws {
        let synthesizer = FakeSynthesizer()
        let stream = SynthesizerProvider(synthesizer: synthesizer).stream(text: text(["One. Two. Three. Four."]))
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        // All the text is there, yet only the sentence being read was synthesised.
        #expect(synthesizer.requests == ["One."])
        _ = try await iterator.next()
        _ = try await iterator.next()
        #expect(synthesizer.requests == ["One.", "Two."])
    }

    @Test func engineErrorsPassThrough() async throws {
        var synthesizer = FakeSynthesizer()
        synthesizer.failingText = "Two."
        let stream = SynthesizerProvider(synthesizer: synthesizer).stream(text: text(["One. Two. Three."]))
        var chunks = 0
        await #expect(throws: FakeError.boom) {
            for try await _ in stream { chunks += 1 }
        }
        #expect(chunks == 2)
        #expect(synthesizer.requests == ["One.", "Two."])
    }

    @Test func noTextMeansNoAudio() async throws {
        let synthesizer = FakeSynthesizer()
        var count = 0
        for try await _ in SynthesizerProvider(synthesizer: synthesizer).stream(text: text(["  ", "\n"])) { count += 1 }
        #expect(count == 0)
        #expect(synthesizer.requests.isEmpty)
    }
}
