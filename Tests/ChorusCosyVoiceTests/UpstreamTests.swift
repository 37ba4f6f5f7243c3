import Foundation
import ChorusGeneration
import ChorusONNX
import Testing
@testable import ChorusCosyVoice

/// Chorus against FunAudioLLM/CosyVoice's own code (scripts/testdata/cosyvoice/make_upstream.py): small models
/// built from upstream's classes at a pinned commit, exported to the community export's file and tensor names,
/// and upstream's inference functions run on them with only the draw pinned to Chorus's SplitMix64 stream.
@Suite struct UpstreamTests {
    static var folder: URL { TestResources.root.appendingPathComponent("upstream", isDirectory: true) }

    /// llm.json: upstream's `CosyVoice3LM.inference` (with its `ras_sampling`) per case, and each drawn token's
    /// margin: the least relative change of that step's logits that could change the draw.
    struct LanguageModelGolden: Decodable {
        struct Case: Decodable {
            var promptTextTokens: [Int]
            var textTokens: [Int]
            var promptSpeech: [Int]
            var samplingSeed: UInt64
            var sampledTokens: [Int]
            var margins: [Double]
        }
        var upstream: [String: String]
        /// The least margin every draw keeps.
        var threshold: Double
        /// The largest difference measured between upstream's PyTorch and ONNX Runtime's logits, relative.
        var measuredBound: Double
        /// The perturbations under which upstream drew the same tokens (a relative size, LogitPerturbation's patterns).
        struct Perturbation: Decodable {
            var size: Double
            var patterns: [UInt64]
        }
        var perturbedAlike: Perturbation
        var cases: [String: Case]
    }

    static func languageModelGolden() throws -> LanguageModelGolden {
        try JSONDecoder().decode(LanguageModelGolden.self, from: Data(contentsOf: folder.appendingPathComponent("llm.json")))
    }

    /// The LLM's five sessions from the upstream-built folder.
    static func languageModel(threads: Int) throws -> LanguageModel {
        let options = SessionOptions(intraOpThreads: threads)
        var sessions: [ModelFolder.File: InferenceSession] = [:]
        for file in [ModelFolder.File.textEmbedding, .speechEmbedding, .backboneInitial, .backboneDecode, .llmDecoder] {
            let path = folder.appendingPathComponent("model").appendingPathComponent(file.rawValue).path
            sessions[file] = try InferenceSession(modelPath: path, options: options)
        }
        return LanguageModel(sessions: ModelFolder.Sessions(sessions))
    }

    /// What the generator recorded about the golden: upstream's commit, its threshold well above the difference it
    /// measured between PyTorch and ONNX Runtime, cases long enough to test something, and one margin per draw.
    /// These are its record; the margins the tests rely on are measured on Chorus's own logits below.
    @Test func goldenRecordsItsUpstreamAndMargins() throws {
        let golden = try Self.languageModelGolden()
        #expect(golden.upstream["cosyvoice"]?.hasPrefix("FunAudioLLM/CosyVoice@") == true)
        #expect(golden.threshold >= 10 * golden.measuredBound)
        #expect(golden.cases.count == 3)
        for (name, expected) in golden.cases.sorted(by: { $0.key < $1.key }) {
            // one margin per draw: each token's, and the stop id's that ended the utterance (before the cap)
            #expect(expected.margins.count == expected.sampledTokens.count + 1, "\(name)")
            #expect(expected.sampledTokens.count >= 20, "\(name)")
        }
    }

    /// The same speech tokens as upstream's `CosyVoice3LM.inference`, exactly, in every `GoldenRun` (1 and 2
    /// threads, every logit moved by a relative 1e-5 in two hashed patterns and against each draw's nearest
    /// boundary); every draw keeps `GoldenRun.leastMargin` on the logits Chorus computed, which is thirteen times
    /// the largest difference the generator measured between upstream's PyTorch and ONNX Runtime (7.7e-7), so
    /// another CPU or thread count draws the same. (The generator checked upstream draws the same tokens under
    /// the two hashed patterns too.)
    @Test(arguments: GoldenRun.allCases) func speechTokensEqualUpstream(run: GoldenRun) throws {
        let golden = try Self.languageModelGolden()
        #expect(golden.perturbedAlike.size == 1e-5 && golden.perturbedAlike.patterns == [1, 2])
        let model = try Self.languageModel(threads: run.threads)
        for (name, expected) in golden.cases.sorted(by: { $0.key < $1.key }) {
            let (tokens, margins) = try run.measured {
                try model.generate(LanguageModel.Request(
                    promptText: expected.promptTextTokens, text: expected.textTokens, promptSpeech: expected.promptSpeech,
                    seed: expected.samplingSeed), onToken: { _ in })
            }
            #expect(tokens == expected.sampledTokens, "\(name), \(run)")
            try run.requireMargins(margins, atLeast: GoldenRun.leastMargin)
            #expect(margins.count == expected.margins.count, "\(name)")
            print("CosyVoice upstream \(name) (\(run)): least margin on Chorus's logits "
                  + "\(margins.map(\.least).min() ?? .infinity), recorded \(expected.margins.min() ?? .infinity)")
        }
    }

    /// The perturbation reaches CosyVoice's draws, so the perturbed runs above could fail: at a relative 1e-2 the
    /// zero-shot case draws otherwise (upstream's did too, from its 22nd token, when the generator checked).
    @Test func perturbationChangesTheDraws() throws {
        let expected = try #require(Self.languageModelGolden().cases["zero-shot"])
        let model = try Self.languageModel(threads: 1)
        let (tokens, first) = try model.drawsFarPerturbed(LanguageModel.Request(
            promptText: expected.promptTextTokens, text: expected.textTokens, promptSpeech: expected.promptSpeech,
            seed: expected.samplingSeed), against: expected.sampledTokens)
        print("CosyVoice zero-shot perturbed by 1e-2: \(tokens.count) tokens, first difference at \(first)")
        #expect(tokens != expected.sampledTokens)
    }

    /// speech.json: upstream `CosyVoice3Model.tts` (stream=False) per case with the draw pinned and the flow's
    /// noise set to Chorus's table (`FlowNoise(seed: noiseSeed)`): the tokens the flow got (after `llm_job`'s
    /// silence filter), and the mel and audio beside it (<case>-mel.f32 [80, frames], <case>-audio.f32).
    struct SpeechGolden: Decodable {
        struct Case: Decodable {
            var samplingSeed: UInt64
            var tokens: [Int]
            var melShape: [Int]
            var audioSamples: Int
            /// How far the generator's ONNX Runtime run of the export lay from upstream's PyTorch (largest |difference|).
            var measuredMelDifference: Double
        }
        var upstream: [String: String]
        var noiseSeed: UInt64
        var cases: [String: Case]
    }

    static func speechGolden() throws -> SpeechGolden {
        try JSONDecoder().decode(SpeechGolden.self, from: Data(contentsOf: folder.appendingPathComponent("speech.json")))
    }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// Float32 sums in another order (PyTorch's kernels against ONNX Runtime's, ten Euler steps through a DiT)
    /// move the mel by about 1e-5 here; 1e-3 is far below what any mistake of the flow's inputs, schedule,
    /// guidance or noise gives (those move it by tenths or more).
    static let melTolerance: Float = 1e-3
    /// The whole vocoder over upstream's mel, as the root-mean-square of the difference over that of upstream's
    /// audio. Upstream computes f0 in float64, the export in float32: the last bit of f0 moves the sine source's
    /// phase, which the random decoder amplifies (the generator measured 0.12 to 0.13 between its ONNX Runtime run
    /// and PyTorch). So this only checks the vocoder's plumbing end to end (lengths, order, scale); its transforms
    /// are compared tightly in `vocoderTransformsEqualUpstream`.
    static let audioTolerance = 0.25

    /// Stage by stage against upstream's `CosyVoice3Model.tts`: the LLM's tokens after the silence filter
    /// exactly, the flow's mel from those tokens, and the vocoder's audio from upstream's mel, within the
    /// tolerances above.
    @Test func speechEqualsUpstream() throws {
        let golden = try Self.speechGolden()
        let sessions = try ModelFolder(url: Self.folder.appendingPathComponent("model")).loadSessions()
        let model = LanguageModel(sessions: sessions)
        let flow = FlowMatching(sessions: sessions)
        let vocoder = Vocoder(sessions: sessions)
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        let prompts = try Self.languageModelGolden().cases
        let noise = FlowNoise(seed: golden.noiseSeed)
        #expect(golden.cases.count == 3)
        for (name, expected) in golden.cases.sorted(by: { $0.key < $1.key }) {
            let prompt = try #require(prompts[name])
            let drawn = try model.generate(LanguageModel.Request(
                promptText: prompt.promptTextTokens, text: prompt.textTokens, promptSpeech: prompt.promptSpeech,
                seed: expected.samplingSeed), onToken: { _ in })
            #expect(SilenceFilter.filter(drawn) == expected.tokens, "\(name)")

            let expectedMel = try Self.floats("\(name)-mel.f32")
            let mel = try flow.mel(tokens: expected.tokens, voice: voice, noise: noise)
            #expect([MelSpectrogram.bins, mel.frames] == expected.melShape, "\(name)")
            let melDifference = maxAbsDifference(mel.values, expectedMel)
            #expect(mel.values.count == expectedMel.count && melDifference <= Self.melTolerance, "\(name): \(melDifference)")

            let expectedAudio = try Self.floats("\(name)-audio.f32")
            let audio = try vocoder.audio(for: MelSpectrogram(frames: expected.melShape[1], values: expectedMel))
            #expect(audio.count == expected.audioSamples, "\(name)")
            #expect(audio.count == expectedAudio.count, "\(name)")
            let audioDifference = relativeRootMeanSquare(audio, expectedAudio)
            #expect(audioDifference <= Self.audioTolerance, "\(name): \(audioDifference)")
            print("CosyVoice against upstream, \(name): \(expected.tokens.count) tokens equal, mel max |diff| \(melDifference) "
                  + "(generator's ONNX Runtime run: \(expected.measuredMelDifference)), audio rms |diff| / rms \(audioDifference)")
        }
    }

    struct VocoderGolden: Decodable {
        var frames: Int
        var measuredDifference: Double
    }

    /// Chorus's STFT of the source, the export's decoder and Chorus's iSTFT against upstream's
    /// `CausalHiFTGenerator.decode` from the same source (vocoder-source.f32, made by upstream's f0 predictor and
    /// sine source from the first 20 frames of the instruct case's mel): the comparison of Chorus's own transforms,
    /// free of the sine source's phase, which the last bit of f0 moves (upstream computes f0 in float64).
    @Test func vocoderTransformsEqualUpstream() throws {
        let golden = try JSONDecoder().decode(VocoderGolden.self, from: Data(contentsOf: Self.folder.appendingPathComponent("vocoder.json")))
        let sessions = try ModelFolder(url: Self.folder.appendingPathComponent("model")).loadSessions()
        let decoder = sessions[.hiftDecoder]
        // The first `frames` frames of the instruct case's mel, channel-major [80, frames].
        let melFrames = try #require(Self.speechGolden().cases["instruct"]).melShape[1]
        let wholeMel = try Self.floats("instruct-mel.f32")
        let mel = (0..<MelSpectrogram.bins).flatMap { wholeMel[($0 * melFrames)..<($0 * melFrames + golden.frames)] }
        let source = try Self.floats("vocoder-source.f32")
        let expected = try Self.floats("vocoder-audio.f32")
        #expect(source.count == golden.frames * Vocoder.samplesPerFrame && expected.count == source.count)

        let frames = HiFTTransform.frameCount(samples: source.count)
        let spectrum = try decoder.floatTensor(shape: [1, 2 * HiFTTransform.bins, frames], for: "source_stft") { spectrum in
            source.withUnsafeBufferPointer { HiFTTransform.forward($0, into: spectrum) }
        }
        let outputs = try decoder.run(["mel": decoder.floatTensor(mel, shape: [1, MelSpectrogram.bins, golden.frames], for: "mel"),
                                       "source_stft": spectrum])
        let magnitudes = try #require(outputs["magnitude"]), phases = try #require(outputs["phase"])
        var audio = [Float](repeating: 0, count: source.count)
        try magnitudes.withFloats { magnitude in
            try phases.withFloats { phase in
                audio.withUnsafeMutableBufferPointer { audio in
                    HiFTTransform.inverse(magnitude: magnitude, phase: phase, frames: frames, magnitudeLimit: Vocoder.magnitudeLimit,
                                          audioLimit: Vocoder.audioLimit, into: audio)
                }
            }
        }
        let difference = maxAbsDifference(audio, expected)
        print("CosyVoice vocoder from upstream's source: max |diff| \(difference) (generator's ONNX Runtime run: \(golden.measuredDifference))")
        #expect(difference <= Self.transformTolerance)
    }

    /// float32 STFT, decoder and iSTFT in another order than PyTorch's: the generator measured 2.2e-6 of a full
    /// scale of 1.
    static let transformTolerance: Float = 2e-5
}

/// The root-mean-square of `a - b` over that of `b`.
func relativeRootMeanSquare(_ a: [Float], _ b: [Float]) -> Double {
    let difference = zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
    let scale = b.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (difference / max(scale, .leastNonzeroMagnitude)).squareRoot()
}
