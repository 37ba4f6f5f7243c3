import ChorusAudio
import ChorusDSP
import Foundation
import ChorusModels
import ChorusPiper
import ChorusSpeech
import Testing
@testable import ChorusCosyVoice

/// Voice extraction on the stand-in campplus.onnx and speech_tokenizer_v3.onnx (same I/O as the real ones).
@Suite struct VoiceExtractorTests {
    static func tone(seconds: Double, rate: Int, amplitude: Float = 0.3) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { n in
            let t = Double(n) / Double(rate)
            let wobble = 1 + 0.3 * sin(2 * Double.pi * 3 * t)
            return amplitude * Float(sin(2 * Double.pi * 180 * t * wobble) * (0.6 + 0.4 * sin(2 * Double.pi * 5 * t)))
        }
    }

    @Test func makesAlignedVoiceFromAClipOfAnyRate() throws {
        let extractor = try VoiceExtractor(folder: TestResources.models)
        let voice = try extractor.encode(samples: Self.tone(seconds: 3, rate: 22_050), sampleRate: 22_050,
                                        transcript: "  希望你以后能够做的比我还好呦。 ")
        #expect(voice.speakerEmbedding.count == 192)
        #expect(voice.speechTokens.count == 75)        // 300 Whisper frames at 100 Hz -> 25 Hz
        #expect(voice.melFrames == 2 * voice.speechTokens.count)
        #expect(voice.text == "希望你以后能够做的比我还好呦。")
        #expect(voice.mel.allSatisfy { $0.isFinite })
    }

    /// upstream load_wav: a clip at another rate is resampled with torchaudio's windowed sinc, from the
    /// original once to 16 kHz (speech tokens, speaker embedding) and once to 24 kHz (prompt mel).
    @Test func promptClipsAreResampledAsUpstreamsLoadWav() throws {
        let extractor = try VoiceExtractor(folder: TestResources.models)
        let clip = Self.tone(seconds: 3, rate: 22_050)
        let voice = try extractor.encode(samples: clip, sampleRate: 22_050, transcript: "a")
        let at16k = try SincResampler(inputRate: 22_050, outputRate: 16_000).resample(clip)
        let at24k = try SincResampler(inputRate: 22_050, outputRate: 24_000).resample(clip)
        let expected = VoicePrompt(speakerEmbedding: try extractor.speakerEmbedding(at16k),
                                   speechTokens: try extractor.speechTokens(at16k), mel: MatchaMel()(at24k).values,
                                   text: "a").aligned()
        #expect(voice.speechTokens == expected.speechTokens)
        #expect(voice.speakerEmbedding == expected.speakerEmbedding)
        #expect(voice.mel == expected.mel)
    }

    @Test func refusesUnusableClips() throws {
        let extractor = try VoiceExtractor(folder: TestResources.models)
        #expect(throws: CosyVoiceError.emptyTranscript) {
            try extractor.encode(samples: Self.tone(seconds: 2, rate: 16_000), sampleRate: 16_000, transcript: " \n")
        }
        #expect(throws: CosyVoiceError.clipTooShort(seconds: 0.5, minimum: 1)) {
            try extractor.encode(samples: Self.tone(seconds: 0.5, rate: 16_000), sampleRate: 16_000, transcript: "hi")
        }
        #expect(throws: CosyVoiceError.clipTooLong(seconds: 31, maximum: 30)) {
            try extractor.encode(samples: [Float](repeating: 0.1, count: 31 * 8_000), sampleRate: 8_000, transcript: "hi")
        }
        #expect(throws: CosyVoiceError.clipSilent(peak: 0)) {
            try extractor.encode(samples: [Float](repeating: 0, count: 32_000), sampleRate: 16_000, transcript: "hi")
        }
    }

    @Test func namesTheMissingExtractionModel() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: CosyVoiceSynthesizer.manifest.missing(folder.appendingPathComponent("campplus.onnx").path)) {
            try VoiceExtractor(folder: folder)
        }
    }

    static let piperInstalled = FileManager.default.fileExists(
        atPath: ModelStore.current.folder(named: "piper").appendingPathComponent(".complete").path)

    /// A real spoken clip: Chorus's own Piper voice says a sentence, and that becomes a CosyVoice voice.
    @Test(.enabled(if: piperInstalled, "Piper not installed in $CHORUS_MODELS; run scripts/setup.sh"))
    func clonesAVoiceFromPiperSpeech() async throws {
        let piper = try PiperSynthesizer()
        let transcript = "The quick brown fox jumps over the lazy dog."
        let speech = try await piper.synthesize(SynthesisRequest(text: transcript))
        let voice = try VoiceExtractor(folder: TestResources.models)
            .encode(samples: speech, sampleRate: piper.sampleRate, transcript: transcript)
        let seconds = Double(speech.count) / Double(piper.sampleRate)
        #expect(abs(Double(voice.speechTokens.count) - seconds * 25) <= 2)
        #expect(voice.melFrames == 2 * voice.speechTokens.count)

        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try voice.write(to: folder.appendingPathComponent("piper-joe"))
        #expect(try VoicePrompt(contentsOf: folder.appendingPathComponent("piper-joe")) == voice)
    }
}
