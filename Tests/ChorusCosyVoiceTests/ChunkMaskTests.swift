import Foundation
import ChorusDSP
import ChorusSpeech
import Testing
@testable import ChorusCosyVoice

/// Upstream CosyVoice 3 streams the chunks before the last through the DiT under a chunk attention mask
/// (cosyvoice/flow/DiT/dit.py `DiT.forward(streaming=True)`, cosyvoice/utils/mask.py `add_optional_chunk_mask`)
/// and the last chunk with full attention. Checked against reference.py on the generated estimator that takes
/// `attn_mask` (estimator-chunk-mask/, written by make_models.py).
@Suite struct ChunkMaskTests {
    func maskedSynthesizer(_ golden: TestResources.Case, models: URL) throws -> CosyVoiceSynthesizer {
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        let tokenizer = ParityTests.GoldenTokenizer(table: [
            Frontend.promptText(transcript: voice.text): golden.promptTextTokens,
            ParityTests.targetText: golden.textTokens,
        ])
        return try CosyVoiceSynthesizer(
            models: ModelFolder(url: models), voicesFolder: TestResources.root, tokenizer: tokenizer,
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed))
    }

    /// Each row of the mask as the frames it lets a query frame attend to.
    func visibleFrames(frames: Int, streaming: Bool) -> [Int] {
        var mask = [Bool](repeating: false, count: frames * frames)
        mask.withUnsafeMutableBufferPointer { FlowMatching.writeAttentionMask(frames: frames, streaming: streaming, into: $0) }
        return (0..<frames).map { query in
            let row = mask[(query * frames)..<((query + 1) * frames)]
            let visible = row.prefix { $0 }.count
            #expect(row.dropFirst(visible).allSatisfy { !$0 }, "row \(query) is a prefix of the frames")
            return visible
        }
    }

    @Test func subsequentChunkMaskSeesItsOwnChunkAndAllChunksToTheLeft() {
        let visible = visibleFrames(frames: 120, streaming: true)
        #expect(visible[0] == 50 && visible[49] == 50)
        #expect(visible[50] == 100 && visible[99] == 100)
        #expect(visible[100] == 120 && visible[119] == 120, "the last, short chunk sees to the end")
        #expect(visibleFrames(frames: 120, streaming: false).allSatisfy { $0 == 120 })
        #expect(visibleFrames(frames: 50, streaming: true).allSatisfy { $0 == 50 })
    }

    /// Tokens exact, chunk sizes equal, streamed audio within 1e-5; whole synthesis (full attention) too.
    @Test func streamsWithUpstreamsChunkMaskLikeTheReference() async throws {
        let golden = try TestResources.chunkMaskCase()
        let folder = try TestResources.modelFolder(variant: "estimator-chunk-mask")
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try maskedSynthesizer(golden, models: folder)
        #expect(engine.flow.takesAttentionMask)
        #expect(engine.streamingAttentionNote.contains("chunk mask"))
        let voice = try VoicePrompt(contentsOf: TestResources.voice)

        var chunks: [[Float]] = []
        let tokens = try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens,
                                                      voice: voice) { chunks.append($0) }
        #expect(tokens == golden.tokens)
        #expect(chunks.map(\.count) == golden.chunkSamples)
        let reference = try TestResources.floats("chunk-mask-stream.f32")
        let streamed = chunks.flatMap { $0 }
        #expect(streamed.count == reference.count)
        let streamDifference = maxAbsDifference(streamed, reference)

        let whole = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens, voice: voice)
        #expect(whole.sampledTokens == golden.sampledTokens)
        #expect(whole.tokens == golden.tokens)
        #expect([MelSpectrogram.bins, whole.mel.frames] == golden.melShape)
        let melDifference = maxAbsDifference(whole.mel.values, try TestResources.floats("chunk-mask-mel.f32"))
        #expect(whole.audio.count == golden.audioSamples)
        let audioDifference = maxAbsDifference(whole.audio, try TestResources.floats("chunk-mask-audio.f32"))
        print("CosyVoice chunk-mask parity: chunks \(chunks.map(\.count)), streamed max |diff| \(streamDifference); "
              + "whole mel max |diff| \(melDifference), audio max |diff| \(audioDifference)")
        #expect(streamDifference <= 1e-5)
        #expect(melDifference <= 1e-5)
        #expect(audioDifference <= 1e-5)
    }

    /// The first chunk's flow under the chunk mask is the reference's, and full attention on the same
    /// estimator gives another mel: the mask really reaches the estimator.
    @Test func aNonFinalChunkAttendsOnlyToItsChunkAndThoseBefore() throws {
        let golden = try TestResources.chunkMaskCase()
        let folder = try TestResources.modelFolder(variant: "estimator-chunk-mask")
        defer { try? FileManager.default.removeItem(at: folder) }
        let flow = FlowMatching(sessions: try ModelFolder(url: folder).loadSessions())
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        let first = TokenHopSchedule(promptTokens: voice.speechTokens.count).tokensNeeded
        #expect(first == golden.firstChunkTokens)
        let tokens = Array(golden.tokens.prefix(first))
        let noise = FlowNoise(seed: golden.noiseSeed)

        let masked = try flow.mel(tokens: tokens, voice: voice, noise: noise, finalize: false, streaming: true)
        let full = try flow.mel(tokens: tokens, voice: voice, noise: noise, finalize: false, streaming: false)
        #expect([MelSpectrogram.bins, masked.frames] == golden.firstChunkMelShape)
        let maskedDifference = maxAbsDifference(masked.values, try TestResources.floats("chunk-mask-first-mel.f32"))
        let fullDifference = maxAbsDifference(full.values, try TestResources.floats("chunk-mask-first-mel-full.f32"))
        let apart = maxAbsDifference(masked.values, full.values)
        print("CosyVoice first chunk: masked max |diff| \(maskedDifference), full max |diff| \(fullDifference), "
              + "masked against full \(apart)")
        #expect(maskedDifference <= 1e-5)
        #expect(fullDifference <= 1e-5)
        #expect(apart > 0.1)

        // The community export's estimator has no mask input: streaming changes nothing there.
        let community = FlowMatching(sessions: try ModelFolder(url: TestResources.models).loadSessions())
        #expect(!community.takesAttentionMask)
        #expect(try community.mel(tokens: tokens, voice: voice, noise: noise, finalize: false, streaming: true)
                == community.mel(tokens: tokens, voice: voice, noise: noise, finalize: false, streaming: false))
    }

    /// upstream CosyVoice3Model.tts runs its last chunk through token2wav with the default stream=False: full
    /// attention over every token, so its new frames are those of a whole synthesis, not of the chunk mask.
    @Test func theFinalChunkAttendsFullyAsUpstreamsLastToken2wav() async throws {
        let golden = try TestResources.chunkMaskCase()
        let folder = try TestResources.modelFolder(variant: "estimator-chunk-mask")
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try maskedSynthesizer(golden, models: folder)
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        var chunks: [[Float]] = []
        _ = try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens,
                                             voice: voice) { chunks.append($0) }
        let chunkSamples = try #require(golden.chunkSamples)
        let reference = try TestResources.floats("chunk-mask-stream.f32")
        let last = try #require(chunks.last)
        #expect(chunks.count == chunkSamples.count && last.count == chunkSamples.last)
        let lastDifference = maxAbsDifference(last, Array(reference.suffix(last.count)))

        // The last chunk's new frames start where the hops before it ended.
        let aligned = voice.aligned()
        var schedule = TokenHopSchedule(promptTokens: aligned.speechTokens.count)
        while schedule.tokensNeeded <= golden.tokens.count { schedule.advance() }
        let fresh = (schedule.offset * FlowMatching.tokenMelRatio)..<(golden.tokens.count * FlowMatching.tokenMelRatio)
        let full = try engine.flow.mel(tokens: golden.tokens, voice: aligned, noise: engine.noise, finalize: true)
        let chunked = try engine.flow.mel(tokens: golden.tokens, voice: aligned, noise: engine.noise, finalize: true,
                                          streaming: true)
        let upstream = MelSpectrogram(frames: golden.melShape[1], values: try TestResources.floats("chunk-mask-mel.f32"))
        let fullDifference = maxAbsDifference(full.frames(fresh).values, upstream.frames(fresh).values)
        let chunkedApart = maxAbsDifference(chunked.frames(fresh).values, upstream.frames(fresh).values)
        print("CosyVoice final chunk: audio max |diff| \(lastDifference); its \(fresh.count) new frames: "
              + "full attention max |diff| \(fullDifference), under the chunk mask \(chunkedApart)")
        #expect(lastDifference <= 1e-5)
        #expect(fullDifference <= 1e-5)
        #expect(chunkedApart > 0.1, "under the chunk mask the last chunk would not be upstream's")
    }

    @Test(arguments: [("float-mask.onnx", "'attn_mask' is float32 [2, 1, mel_len, mel_len]"),
                      ("rank-3-mask.onnx", "'attn_mask' is bool [2, mel_len, mel_len]")])
    func refusesAnAttentionMaskThatIsNotUpstreams(file: String, declared: String) throws {
        let variant = TestResources.root.appendingPathComponent("estimator-unusable-mask").appendingPathComponent(file)
        let folder = try TestResources.modelFolder(replacing: [ModelFolder.File.flowEstimator.rawValue: variant])
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try ModelFolder(url: folder).loadSessions()
            Issue.record("an estimator with \(declared) loaded")
        } catch let error as CosyVoiceError {
            guard case .unusableAttentionMask(let name, let problem) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(name == ModelFolder.File.flowEstimator.rawValue)
            #expect(problem == declared)
            #expect(error.description.contains("bool [2, 1, frames, frames]"))
        }
    }
}
