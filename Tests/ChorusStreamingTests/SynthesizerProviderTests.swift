import ChorusFiles
import Foundation
import ChorusModels
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
        // Cut where PieceRamp cuts an engine's first piece of 60 characters: before the last joining word in time.
        #expect(synthesizer.requests == ["The old lighthouse stood at the edge of the cliff", "for more than a century.", "It still shines."])
        let whole = FakeSynthesizer()
        for try await _ in SynthesizerProvider(synthesizer: whole, firstPieceLength: nil).stream(text: self.text([text])) {}
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

    // An engine that runs pieces side by side is given the sentences in hand after the first as one request.

    @Test func afterTheFirstSentenceTheSentencesInHandGoToAParallelEngineAsOneRequest() async throws {
        let parallel = FakeSynthesizer(piecesInFlight: 2)
        let sequential = FakeSynthesizer()
        let pieces = ["One. Two. Three. ", "Four. Five."]
        var bytes = Data()
        for try await piece in SynthesizerProvider(synthesizer: parallel).stream(text: text(pieces)) { bytes.append(piece) }
        for try await _ in SynthesizerProvider(synthesizer: sequential).stream(text: text(pieces)) {}
        // The first text gives three sentences: the first alone, the two in hand after it together. "Four." is
        // alone in hand when it comes (the text has not ended yet), and "Five." comes only with the end.
        #expect(parallel.requests == ["One.", "Two. Three.", "Four.", "Five."])
        #expect(sequential.requests == ["One.", "Two.", "Three.", "Four.", "Five."])
        // Every sentence once, in order, and the audio is each request's audio, whole, in request order.
        #expect(parallel.requests.joined(separator: " ") == sequential.requests.joined(separator: " "))
        #expect(bytes == float32Bytes(parallel.requests.flatMap(FakeSynthesizer.samples(for:))))
    }

    @Test func theFirstSentenceIsSpokenAloneWithoutWaitingForMoreText() async throws {
        let synthesizer = FakeSynthesizer(piecesInFlight: 2)
        let (text, input) = AsyncStream.makeStream(of: String.self)
        input.yield("One. Two. Three. ")
        let audio = try await withDeadlockGuard {
            var chunks = SynthesizerProvider(synthesizer: synthesizer).stream(text: text).makeAsyncIterator()
            // The text is still open: had the first sentence waited for more, this would not return.
            let first = try await chunks.next()
            let requestsAtFirstAudio = synthesizer.requests
            _ = try await chunks.next()
            let second = try await chunks.next()
            let requestsAtSecondAudio = synthesizer.requests
            return (first, requestsAtFirstAudio, second, requestsAtSecondAudio)
        }
        input.finish()
        let one = FakeSynthesizer.samples(for: "One."), twoThree = FakeSynthesizer.samples(for: "Two. Three.")
        #expect(audio.0 == float32Bytes(Array(one[..<(one.count / 2)])))
        #expect(audio.1 == ["One."])
        #expect(audio.2 == float32Bytes(Array(twoThree[..<(twoThree.count / 2)])))
        #expect(audio.3 == ["One.", "Two. Three."])
    }

    @Test func cancellingTheConsumerEndsTheJoinedRequestInTheEngine() async throws {
        let synthesizer = HeldSynthesizer(held: "Two. Three.")
        let stream = SynthesizerProvider(synthesizer: synthesizer).stream(text: text(["One. Two. Three. Four."]))
        let consumer = Task {
            var chunks = 0
            do {
                for try await _ in stream { chunks += 1 }
            } catch is CancellationError {
                return (chunks, true)
            }
            return (chunks, false)
        }
        // The first sentence's audio is read; the joined request has started and holds.
        try await eventually { synthesizer.log.withLock { $0.requests } == ["One.", "Two. Three."] }
        consumer.cancel()
        let (chunks, cancelled) = try await withDeadlockGuard { try await consumer.value }
        #expect(chunks == 1)
        #expect(cancelled)
        try await eventually { synthesizer.log.withLock { $0.ended } == ["One.", "Two. Three."] }
        // Nothing after the held request was asked for.
        #expect(synthesizer.log.withLock { $0.requests } == ["One.", "Two. Three."])
    }
}

/// An engine that runs two pieces at once, whose request with the text `held` makes no audio until its
/// stream is ended by the consumer; logs each request and each request's stream that ended.
private struct HeldSynthesizer: SpeechSynthesizer {
    struct Log {
        var requests: [String] = []
        var ended: [String] = []
    }

    let engineName = "held"
    let sampleRate = 16_000
    let voices = [Voice(id: "plain", engine: "held", language: "en-US", gender: .unknown)]
    let piecesInFlight = 2
    let held: String
    let log = Locked(Log())

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AudioChunk.self)
        let log = log
        log.withLock { $0.requests.append(request.text) }
        continuation.onTermination = { _ in log.withLock { $0.ended.append(request.text) } }
        if request.text != held {
            continuation.yield(AudioChunk(samples: FakeSynthesizer.samples(for: request.text), sampleRate: sampleRate))
            continuation.finish()
        }
        return stream
    }
}
