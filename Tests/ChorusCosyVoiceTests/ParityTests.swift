import Foundation
import ChorusDSP
import ChorusGeneration
import ChorusONNX
import ChorusSpeech
import Testing
import ChorusText
@testable import ChorusCosyVoice

/// Chorus against the Python reference (scripts/testdata/cosyvoice/reference.py) on the generated models:
/// the same tokens, and mel and audio within 1e-5.
@Suite struct ParityTests {
    /// Maps the two texts of the golden case to the ids the reference used, as a real tokenizer would.
    struct GoldenTokenizer: TextTokenizer {
        var table: [String: [Int]]
        func encode(_ text: String) throws -> [Int] {
            // Pieces the table lacks (the sentence splitter measures parts) count one token per character.
            table[text] ?? text.map { _ in 0 }
        }
        func decode(_ ids: [Int], skipsSpecialTokens: Bool) throws -> String { "" }
        func id(of token: String) -> Int? { nil }
        func token(of id: Int) -> String? { nil }
        var vocabularySize: Int { 151_646 + 300 }
    }

    static let targetText = "你好，这是一个测试句子。"

    func synthesizer(_ golden: TestResources.Case, overlapsStages: Bool = false) throws -> CosyVoiceSynthesizer {
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let tokenizer = GoldenTokenizer(table: [
            Frontend.promptText(transcript: voice.text): golden.promptTextTokens,
            Self.targetText: golden.textTokens,
        ])
        return try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: TestResources.root, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed,
                                 overlapsStages: overlapsStages))
    }

    /// Each golden's sampled tokens, drawn by the LLM alone in every `GoldenRun` (1 and 2 intra-op threads, every
    /// logit moved by a relative 1e-5 in two hashed patterns and against each draw's nearest boundary): the same
    /// tokens in every run, and every draw (one per token, and the stop id's that ended the utterance before the
    /// cap) keeps `GoldenRun.leastMargin` measured on the logits Chorus computed, so another CPU draws the same.
    /// reference.py's margins (of its own logits) are its record; Chorus's draws must be the ones it recorded.
    /// The chunk-mask case has the zero-shot case's tokens, so this covers it too.
    @Test(arguments: GoldenRun.allCases) func sampledTokensSurviveEveryGoldenRun(run: GoldenRun) throws {
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        let model = try LanguageModel(sessions: ModelFolder(url: TestResources.models)
            .loadSessions(options: SessionOptions(intraOpThreads: run.threads)))
        let cases = [("zero-shot", try TestResources.goldenCase(), voice.speechTokens),
                     ("instruct2", try TestResources.instructCase(), []),
                     ("cross-lingual", try TestResources.crossLingualCase(), [])]
        #expect(try TestResources.chunkMaskCase().sampledTokens == cases[0].1.sampledTokens)
        for (name, golden, promptSpeech) in cases {
            let (tokens, margins) = try run.measured {
                try model.generate(LanguageModel.Request(
                    promptText: golden.promptTextTokens, text: golden.textTokens, promptSpeech: promptSpeech,
                    seed: golden.samplingSeed), onToken: { _ in })
            }
            #expect(tokens == golden.sampledTokens, "\(name), \(run)")
            try run.requireMargins(margins, atLeast: GoldenRun.leastMargin)
            #expect(margins.count == golden.margins.count, "\(name): \(margins.count) draws, the reference recorded \(golden.margins.count)")
            print("CosyVoice reference \(name) (\(run)): \(tokens.count) tokens, least margin on Chorus's logits "
                  + "\(margins.map(\.least).min() ?? .infinity), recorded \(golden.margins.min() ?? .infinity)")
        }
    }

    /// The perturbation reaches the draws of the reference's model, so the runs above could fail: at a relative
    /// 1e-2 the zero-shot case draws otherwise.
    @Test func perturbationChangesTheDraws() throws {
        let golden = try TestResources.goldenCase()
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        let model = try LanguageModel(sessions: ModelFolder(url: TestResources.models)
            .loadSessions(options: SessionOptions(intraOpThreads: 1)))
        let (tokens, first) = try model.drawsFarPerturbed(LanguageModel.Request(
            promptText: golden.promptTextTokens, text: golden.textTokens, promptSpeech: voice.speechTokens,
            seed: golden.samplingSeed), against: golden.sampledTokens)
        print("CosyVoice reference zero-shot perturbed by 1e-2: \(tokens.count) tokens, first difference at \(first)")
        #expect(tokens != golden.sampledTokens)
    }

    @Test func matchesTheReferenceStageByStage() throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden)
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let result = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice)

        #expect(result.sampledTokens == golden.sampledTokens)
        #expect(result.tokens == golden.tokens)
        #expect(result.sampledTokens.count > result.tokens.count, "the golden case exercises the silence filter")

        let mel = try TestResources.floats("mel.f32")
        #expect([MelSpectrogram.bins, result.mel.frames] == golden.melShape)
        let melDifference = maxAbsDifference(result.mel.values, mel)
        let audio = try TestResources.floats("audio.f32")
        #expect(result.audio.count == golden.audioSamples)
        let audioDifference = maxAbsDifference(result.audio, audio)
        print("CosyVoice parity: \(result.tokens.count) tokens equal: \(result.tokens == golden.tokens), "
              + "mel max |diff| \(melDifference), audio max |diff| \(audioDifference)")
        #expect(melDifference <= 1e-5)
        #expect(audioDifference <= 1e-5)

        // Again on the same engine: the KV cache now goes into kept buffers from the prefill on.
        let again = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice)
        #expect(again.sampledTokens == golden.sampledTokens)
        #expect(again.audio == result.audio)
    }

    /// With the LLM in an executor job of its own beside the flow and vocoder, and with the stages in turn.
    @Test(arguments: [true, false]) func streamsLikeTheReference(overlapsStages: Bool) async throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden, overlapsStages: overlapsStages)
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        var chunks: [[Float]] = []
        let tokens = try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens,
                                                voice: voice) { chunks.append($0) }
        #expect(tokens == golden.tokens)
        let expected = try JSONDecoder().decode([String: [Int]].self,
                                                from: Data(contentsOf: TestResources.golden.appendingPathComponent("stream.json")))
        #expect(chunks.map(\.count) == expected["chunkSamples"])
        let reference = try TestResources.floats("stream.f32")
        let streamed = chunks.flatMap { $0 }
        #expect(streamed.count == reference.count)
        let difference = maxAbsDifference(streamed, reference)
        print("CosyVoice streaming parity: chunks \(chunks.map(\.count)), audio max |diff| \(difference)")
        #expect(difference <= 1e-5)
    }

    @Test(arguments: [true, false]) func cancellingOrFailingStopsTheStream(overlapsStages: Bool) async throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden, overlapsStages: overlapsStages)
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let consumer = Task {
            var chunks = 0
            try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice) { _ in
                chunks += 1
                // The task cancels itself at its first chunk: a cancel that lands mid-stream, with no other
                // task to wait for (blocking here for one could starve the shared test threads).
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return chunks
        }
        await #expect(throws: CancellationError.self) { try await consumer.value }

        // A chunk callback that throws ends the stream with its error; the engine then streams in full again.
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice) { _ in
                throw Stop()
            }
        }
        var samples = 0
        try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice) {
            samples += $0.count
        }
        #expect(samples == (try TestResources.floats("stream.f32")).count)
    }

    /// upstream CosyVoice2Model.tts keeps `token_hop_len` on the model, so a request's second piece starts
    /// at the hop the first one reached (100 here, its first chunk after 180 tokens plus lookahead); Chorus
    /// restarts every piece at 25 (see `TokenHopSchedule(promptTokens:)`), so both pieces of the same text
    /// stream in the same chunks as one piece alone.
    @Test func eachPieceRestartsTheHopUpstreamKeepsDoubled() async throws {
        let golden = try TestResources.goldenCase()
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let sentence = String(repeating: "这是一个很长的句子用来检查分段", count: 4) + "。"
        let tokenizer = GoldenTokenizer(table: [
            Frontend.promptText(transcript: voice.text): golden.promptTextTokens,
            sentence: golden.textTokens,
        ])
        let engine = try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: TestResources.root, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed, textNormalization: .disabled))
        #expect(try engine.pieces(of: sentence + sentence) == [sentence, sentence])
        var chunks: [Int] = []
        for try await chunk in engine.stream(SynthesisRequest(text: sentence + sentence)) { chunks.append(chunk.samples.count) }
        let expected = try JSONDecoder().decode([String: [Int]].self,
                                                from: Data(contentsOf: TestResources.golden.appendingPathComponent("stream.json")))
        let one = try #require(expected["chunkSamples"])
        #expect(one.count > 1, "the piece is long enough for the hop to grow")
        #expect(chunks == one + one)
    }

    /// upstream inference_instruct2 (how CosyVoice 3 speaks dialects): the LLM reads the instruction and
    /// no prompt speech, the flow still the voice's tokens, mel and embedding.
    @Test func followsAnInstructionLikeTheReference() async throws {
        let golden = try TestResources.instructCase()
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try VoiceCatalog.add(voice, id: "yue", language: Dialect.cantonese.languageTag, gender: .female,
                             instruction: Dialect.cantonese.instruction, to: folder)
        let tokenizer = GoldenTokenizer(table: [
            Frontend.instructionPrompt(Dialect.cantonese.instruction): golden.promptTextTokens,
            Self.targetText: golden.textTokens,
        ])
        let engine = try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: folder, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed))

        let result = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice,
                                           usesPromptSpeech: false)
        #expect(result.sampledTokens == golden.sampledTokens)
        #expect(result.tokens == golden.tokens)
        let audioDifference = maxAbsDifference(result.audio, try TestResources.floats("instruct-audio.f32"))
        #expect(result.audio.count == golden.audioSamples)
        #expect(audioDifference <= 1e-5)

        // Through the shared protocol, the voice's instruction is what the LLM reads.
        var chunks: [[Float]] = []
        for try await chunk in engine.stream(SynthesisRequest(text: Self.targetText, voice: "yue")) {
            chunks.append(chunk.samples)
        }
        #expect(chunks.map(\.count) == golden.chunkSamples)
        let streamDifference = maxAbsDifference(chunks.flatMap { $0 }, try TestResources.floats("instruct-stream.f32"))
        print("CosyVoice instruct2 parity: \(result.tokens.count) tokens equal: \(result.tokens == golden.tokens), "
              + "audio max |diff| \(audioDifference), streamed max |diff| \(streamDifference)")
        #expect(streamDifference <= 1e-5)
        // The instruction changes what the LLM draws: the zero-shot case, same text, differs.
        #expect(golden.sampledTokens != (try TestResources.goldenCase().sampledTokens))
    }

    /// The seed app's fp16 bug: a backbone exported without keep_io_types returns a float16 KV cache
    /// (and float16 hidden states); the cache must go back in as float16, untouched.
    @Test func carriesAFloat16CacheThroughTheDecodeLoop() throws {
        let golden = try TestResources.goldenCase()
        let folder = try TestResources.modelFolder(variant: "backbone-fp16-io")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sessions = try ModelFolder(url: folder).loadSessions()
        #expect(sessions[.backboneDecode].output(named: "new_past_key_values")?.elementType == .float16)
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        var random = SeededRandom(seed: golden.samplingSeed)
        let tokens = try LanguageModel(sessions: sessions).generate(
            promptText: golden.promptTextTokens, text: golden.textTokens, promptSpeech: voice.speechTokens, random: &random)
        // float16 rounding moves the logits a little, so the draws may part from float32's sooner or later.
        let agreeing = zip(tokens, golden.sampledTokens).prefix { $0 == $1 }.count
        print("CosyVoice float16 cache: \(tokens.count) tokens, the first \(agreeing) as with float32")
        #expect(agreeing >= 10)
    }

    @Test func speaksThroughTheSharedProtocol() async throws {
        let golden = try TestResources.goldenCase()
        let engine = try synthesizer(golden)
        #expect(engine.voices.map(\.id) == ["voice"])
        var chunks = 0
        var samples: [Float] = []
        for try await chunk in engine.stream(SynthesisRequest(text: Self.targetText)) {
            #expect(chunk.sampleRate == 24_000)
            chunks += 1
            samples += chunk.samples
        }
        let expected = try JSONDecoder().decode([String: [Int]].self,
                                                from: Data(contentsOf: TestResources.golden.appendingPathComponent("stream.json")))
        #expect(chunks == expected["chunkSamples"]?.count)
        let streamed = try TestResources.floats("stream.f32")
        #expect(maxAbsDifference(samples, streamed) <= 1e-5)

        // Other speeds synthesise whole, the mel resampled before the vocoder.
        let faster = try await engine.synthesize(SynthesisRequest(text: Self.targetText, speed: 2))
        #expect(faster.count == golden.audioSamples / 2)

        let long = String(repeating: "这是一个很长的句子，用来检查分段。", count: 12)
        let pieces = try engine.pieces(of: long)
        #expect(pieces.count > 1)
        #expect(pieces.joined() == long)
        #expect(pieces.allSatisfy { $0.count <= CosyVoiceSynthesizer.maximumTextTokens })
        #expect(try engine.pieces(of: Self.targetText) == [Self.targetText])

        await #expect(throws: SpeechError.emptyText) {
            _ = try await engine.synthesize(SynthesisRequest(text: "  "))
        }
    }
}
