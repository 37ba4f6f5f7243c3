import ChorusSpeech
import Testing

/// An engine with no model: it speaks each word of the text as one chunk of that many samples
/// (the word's length in characters, each sample the word's index), and fails on the word "fail".
private struct WordCounter: SpeechSynthesizer {
    let engineName = "words"
    let sampleRate = 100
    var voices = [Voice(id: "first", engine: "words", language: "en", gender: .female),
                  Voice(id: "second", engine: "words", language: "de", gender: .male)]

    struct Failure: Error, Equatable {}

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        let words = request.text.split(separator: " ").map(String.init)
        return AsyncThrowingStream { continuation in
            for (index, word) in words.enumerated() {
                if word == "fail" {
                    continuation.finish(throwing: Failure())
                    return
                }
                continuation.yield(AudioChunk(samples: [Float](repeating: Float(index), count: word.count),
                                              sampleRate: sampleRate, text: word))
            }
            continuation.finish()
        }
    }
}

/// An engine that says, as one sample, whether its request put the whole text first (1) or not (0).
private struct PriorityTeller: SpeechSynthesizer {
    let engineName = "priority"
    let sampleRate = 100
    let voices = [Voice(id: "one", engine: "priority", language: "en", gender: .unknown)]

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        let sample: Float = request.priority == .wholeText ? 1 : 0
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioChunk(samples: [sample], sampleRate: sampleRate, text: request.text))
            continuation.finish()
        }
    }
}

@Suite struct SpeechSynthesizerTests {
    /// Nothing of `synthesize`'s audio is heard before it is all made, so it asks for the whole text first.
    @Test func synthesizePutsTheWholeTextFirst() async throws {
        #expect(try await PriorityTeller().synthesize(SynthesisRequest(text: "a")) == [1])
        var streamed: [Float] = []
        for try await chunk in PriorityTeller().stream(SynthesisRequest(text: "a")) { streamed += chunk.samples }
        #expect(streamed == [0])
    }

    @Test func synthesizeJoinsTheChunksInOrder() async throws {
        let samples = try await WordCounter().synthesize(SynthesisRequest(text: "ab c def"))
        #expect(samples == [0, 0, 1, 2, 2, 2])
        #expect(try await WordCounter().synthesize(SynthesisRequest(text: "")) == [])
    }

    @Test func synthesizeThrowsWhatTheStreamThrows() async {
        await #expect(throws: WordCounter.Failure()) {
            try await WordCounter().synthesize(SynthesisRequest(text: "one fail three"))
        }
    }

    @Test func voiceIDsResolveOrNameWhatIsAvailable() throws {
        let engine = WordCounter()
        #expect(try engine.voice(nil as String?).id == "first")
        #expect(try engine.voice("second").language == "de")
        #expect(throws: SpeechError.unknownVoice("third", engine: "words", available: ["first", "second"])) {
            try engine.voice("third")
        }
        let silent = WordCounter(voices: [])
        #expect(throws: SpeechError.noVoices(engine: "words")) { try silent.voice(nil as String?) }
        #expect(throws: SpeechError.noVoices(engine: "words")) { try silent.voice("first") }
    }

    @Test func requestDefaults() {
        let request = SynthesisRequest(text: "Hello.")
        #expect(request.text == "Hello.")
        #expect(request.voice == nil)
        #expect(request.language == nil)
        #expect(request.speed == 1)
        let slow = SynthesisRequest(text: "Hello.", voice: "second", language: "de-DE", speed: 0.5)
        #expect(slow.voice == .installed("second") && slow.language == "de-DE" && slow.speed == 0.5)
        #expect(slow != request)
    }

    @Test func chunkDuration() {
        #expect(AudioChunk(samples: [Float](repeating: 0, count: 12_000), sampleRate: 24_000).duration == 0.5)
        #expect(AudioChunk(samples: [], sampleRate: 24_000, text: "").duration == 0)
    }
}
