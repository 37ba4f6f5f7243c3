import ChorusDSP
import ChorusGeneration
import ChorusONNX
import ChorusSpeech
import Foundation
import Testing
@testable import ChorusNeuTTS

@Suite struct GenerationTests {
    /// upstream `_infer_torch` (Hugging Face generate, top-k 50, 50 tokens at least, the draws pinned to
    /// SplitMix64) on the PyTorch weights; Chorus on their ONNX export: the same tokens, exactly, in every
    /// `GoldenRun`. Exact equality holds on any CPU because every draw keeps a margin (`DrawMargin`, measured here
    /// on the logits Chorus computed) above what another kernel, thread count or instruction set changes in the
    /// logits; the runs at 1 and 2 threads, with the logits perturbed by a relative 1e-5 in two hashed patterns
    /// and against each draw's nearest boundary show it. The generator's margins are its record (one per draw).
    @Test(arguments: ["short", "long"], GoldenRun.allCases)
    func tokensEqualUpstream(name: String, run: GoldenRun) throws {
        let golden = try TestResources.goldenCase(name)
        let recorded = try #require(golden.margins, "the golden records no margins; run make_testdata.py --goldens-only")
        #expect(recorded.count == golden.generatedIds.count)
        #expect(golden.thresholds?.values.min() == TestResources.leastMargin)
        #expect(golden.versions?["neutts"] == "1.4.1" && golden.versions?["onnxruntime"] != nil)
        let builder = try TestResources.promptBuilder()
        let backbone = try Backbone(session: TestResources.session("backbone.onnx", threads: run.threads), stopToken: builder.stopToken)
        #expect(backbone.layers == 2 && backbone.keyValueHeads == 1 && backbone.headSize == 8)
        var seen: [Int] = []
        let (tokens, margins) = try run.measured {
            try backbone.generate(.init(ids: golden.promptIds, seed: golden.seed)) { seen.append($0) }
        }
        print("NeuTTS \(name) (\(run)): \(tokens.count) tokens, least margin on Chorus's logits "
              + "\(margins.map(\.least).min() ?? .infinity), recorded \(recorded.min() ?? 0)")
        #expect(margins.count == recorded.count)
        let expected = golden.generatedIds.last == builder.stopToken ? Array(golden.generatedIds.dropLast()) : golden.generatedIds
        #expect(tokens == expected)
        try run.requireMargins(margins, atLeast: TestResources.threshold(name))
        #expect(seen == tokens)
        #expect(builder.codes(in: tokens) == golden.codes)
        if name == "long" {
            // The prompt leaves fewer than 50 places: the context ends it, not the stop token.
            #expect(golden.promptIds.count + tokens.count == Backbone.context)
        } else {
            #expect(tokens.count >= 50)
        }
        // A second utterance reuses the kept cache buffers and draws the same.
        #expect(try run { try backbone.generate(.init(ids: golden.promptIds, seed: golden.seed)) { _ in } } == tokens)
    }

    /// The perturbation reaches the backbone's draws: a seed of the short case whose draw sits close to a
    /// boundary (its least margin 6.4e-8, a draw's, as make_testdata.py measured it) draws otherwise with it on,
    /// so the runs above could have failed.
    @Test func perturbationChangesADrawNearABoundary() throws {
        let golden = try TestResources.goldenCase("short")
        let builder = try TestResources.promptBuilder()
        let backbone = try Backbone(session: TestResources.session("backbone.onnx"), stopToken: builder.stopToken)
        let plain = try backbone.generate(.init(ids: golden.promptIds, seed: 24)) { _ in }
        let perturbed = try [GoldenRun.perturbedUp, .perturbedDown].map { run in
            try run { try backbone.generate(.init(ids: golden.promptIds, seed: 24)) { _ in } }
        }
        print("NeuTTS seed 24: \(plain.count) tokens; perturbed \(perturbed.map(\.count))")
        #expect(perturbed.contains { $0 != plain })
    }

    /// Hugging Face's top-k (upstream's PyTorch path) keeps the tokens tied with the k-th; llama.cpp's (the GGUF
    /// path) keeps exactly k. Logits with four tokens tied at the 2nd place: top-k 2 keeps all five there.
    @Test func topKKeepsTiesOnTheTorchPathOnly() throws {
        func candidates(_ sampling: NeuTTSSampling) throws -> Set<Int> {
            var logits: [Float] = [3, 1, 1, 1, 1, 0, -1]
            let steps = sampling.steps(stopToken: 6).filter { $0 is TopK }
            var sampler = TokenSampler(steps + [GreedyDraw()], vocabularySize: logits.count, random: SeededRandom(seed: 1))
            _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
            return Set(sampler.state.candidates)
        }
        #expect(try candidates(.torch(temperature: 1, topK: 2, minimumTokens: 0)) == [0, 1, 2, 3, 4])
        #expect(try candidates(.gguf(temperature: 1, topK: 2, topP: 1, minP: 0)).count == 2)
    }

    @Test func throwingFromOnTokenEndsGeneration() throws {
        let golden = try TestResources.goldenCase("short")
        let builder = try TestResources.promptBuilder()
        let backbone = try Backbone(session: TestResources.session("backbone.onnx"), stopToken: builder.stopToken)
        var count = 0
        #expect(throws: CancellationError.self) {
            try backbone.generate(.init(ids: golden.promptIds, seed: 1)) { _ in
                count += 1
                if count == 7 { throw CancellationError() }
            }
        }
        #expect(count == 7)
    }

    /// scripts/export-neutts-backbone.py's graph returns the last position's logits only ([1, 1, V]; a real-size
    /// prompt's would be prompt x V floats, 0.5 GB for Air): the same backbone draws the same tokens.
    @Test func aBackboneReturningTheLastLogitsOnlyDrawsTheSame() throws {
        let golden = try TestResources.goldenCase("short")
        let builder = try TestResources.promptBuilder()
        let backbone = try Backbone(session: TestResources.session("backbone-last-logits.onnx"), stopToken: builder.stopToken)
        let tokens = try backbone.generate(.init(ids: golden.promptIds, seed: golden.seed)) { _ in }
        let expected = golden.generatedIds.last == builder.stopToken ? Array(golden.generatedIds.dropLast()) : golden.generatedIds
        #expect(tokens == expected)
    }

    /// The golden short case stops after 51 tokens; an exact length carries it past its stop and ends it there.
    @Test func anExactLengthDrawsThatManyTokens() throws {
        let golden = try TestResources.goldenCase("short")
        let builder = try TestResources.promptBuilder()
        for length in [20, 130] {
            let backbone = try Backbone(session: TestResources.session("backbone.onnx"), stopToken: builder.stopToken,
                                        exactLength: length)
            let tokens = try backbone.generate(.init(ids: golden.promptIds, seed: golden.seed)) { _ in }
            #expect(tokens.count == length)
            #expect(!tokens.contains(builder.stopToken))
        }
    }

    @Test func decodedAudioEqualsUpstream() throws {
        let codec = try CodecDecoder(session: TestResources.session("decoder.onnx"))
        for name in ["short", "long"] {
            let golden = try TestResources.goldenCase(name)
            let audio = try codec.decode(golden.codes)
            let expected = try TestResources.floats("\(name)-audio.f32")
            #expect(audio.count == (golden.codes.count - 1) * CodecDecoder.samplesPerCode)
            #expect(audio.count == expected.count)
            let difference = TestResources.maximumDifference(audio, expected)
            print("NeuTTS \(name): \(audio.count) samples, max |difference| from upstream \(difference)")
            #expect(difference < 1e-4, "\(name)")
        }
    }

    /// upstream `_infer_stream_ggml` fed the same tokens: 25-code chunks, 5 ahead, 50 back, overlap-add.
    @Test func streamedAudioEqualsUpstream() throws {
        let codec = try CodecDecoder(session: TestResources.session("decoder.onnx"))
        for name in ["short", "long"] {
            let golden = try TestResources.goldenCase(name)
            let reference = try TestResources.ints("\(name)-ref.i32")
            var streaming = TokenStreaming(decoder: StreamingCodecDecoder(codec: codec, referenceCodes: reference),
                                           schedule: StreamingCodecDecoder.schedule)
            var chunks: [Int] = []
            var audio: [Float] = []
            for code in golden.codes {
                let piece = try streaming.add(code)
                if !piece.isEmpty { chunks.append(piece.count) }
                audio += piece
            }
            let tail = try streaming.finish()
            if !tail.isEmpty { chunks.append(tail.count) }
            audio += tail
            let expected = try TestResources.floats("\(name)-stream.f32")
            #expect(chunks == golden.chunkSamples, "\(name)")
            #expect(audio.count == expected.count)
            let difference = TestResources.maximumDifference(audio, expected)
            print("NeuTTS \(name) streamed: \(chunks) samples, max |difference| from upstream \(difference)")
            #expect(difference < 1e-4, "\(name)")
        }
    }
}
