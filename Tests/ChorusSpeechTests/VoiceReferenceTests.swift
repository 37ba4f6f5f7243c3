import ChorusSpeech
import Testing

/// An engine with two installed voices and no model.
private struct TwoVoices: SpeechSynthesizer {
    let engineName = "two"
    let sampleRate = 8_000
    let voices = [Voice(id: "a", engine: "two", language: "en", gender: .female),
                  Voice(id: "b", engine: "two", language: "fr", gender: .male)]
    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        AsyncThrowingStream { $0.finish() }
    }
}

@Suite struct VoiceReferenceTests {
    @Test func aStringNamesAnInstalledVoice() {
        let request = SynthesisRequest(text: "Hi.", voice: "b")
        #expect(request.voice == .installed("b"))
        #expect(SynthesisRequest(text: "Hi.", voiceID: "b") == request)
        #expect(SynthesisRequest(text: "Hi.", voiceID: nil).voice == nil)
        #expect(request.language == nil)
    }

    @Test func installedAndDefaultVoicesResolve() throws {
        let engine = TwoVoices()
        #expect(try engine.voice(nil as VoiceReference?).id == "a")
        #expect(try engine.voice(VoiceReference.installed("b")).language == "fr")
        #expect(throws: SpeechError.unknownVoice("c", engine: "two", available: ["a", "b"])) {
            try engine.voice(VoiceReference.installed("c"))
        }
    }

    @Test func aClonedVoiceResolvesOnlyOnTheEngineThatMadeIt() throws {
        let mine = ClonedVoice(voice: Voice(id: "clip", engine: "two", language: "de", gender: .unknown), conditioning: [1, 2, 3])
        let theirs = ClonedVoice(voice: Voice(id: "clip", engine: "other", language: "de", gender: .unknown), conditioning: 0)
        #expect(try TwoVoices().voice(VoiceReference.cloned(mine)).language == "de")
        #expect(throws: SpeechError.clonedVoiceOfAnotherEngine(voice: "clip", madeBy: "other", engine: "two")) {
            try TwoVoices().voice(VoiceReference.cloned(theirs))
        }
        #expect("\(SpeechError.clonedVoiceOfAnotherEngine(voice: "clip", madeBy: "other", engine: "two"))"
            == "Voice 'clip' was cloned by other and cannot speak with two; clone it with two or pick one of its voices.")
    }

    @Test func clonedVoicesAreEqualOnlyAsCopiesOfOneClone() {
        let voice = Voice(id: "clip", engine: "two", language: "en", gender: .unknown)
        let first = ClonedVoice(voice: voice, conditioning: 1)
        let copy = first
        #expect(first == copy)
        #expect(first != ClonedVoice(voice: voice, conditioning: 1))
        #expect(Set([first, copy]).count == 1)
    }

    @Test func aClipKnowsItsLength() {
        #expect(VoiceClip(samples: [Float](repeating: 0, count: 48_000), sampleRate: 16_000).duration == 3)
        #expect(VoiceClip(samples: [], sampleRate: 0).duration == 0)
    }
}
