import ChorusDSP
import ChorusFiles
import ChorusGeneration
import ChorusModels
import ChorusONNX
import Foundation
import Testing
@testable import ChorusChatterbox

@Suite struct GenerationTests {
    /// upstream `T3.inference_turbo` (temperature 0.8, top-k 1000, top-p 0.95, penalty 1.2, draws pinned to
    /// SplitMix64) on the PyTorch weights; Chorus on their ONNX export: the same tokens, exactly, in every
    /// `GoldenRun`. Exact equality holds on any CPU because every draw keeps a margin (`DrawMargin`, measured here
    /// on the logits Chorus computed) above what another kernel, thread count or instruction set changes in the
    /// logits; the runs at 1 and 2 threads, with the logits perturbed by a relative 1e-5 in two hashed patterns
    /// and against each draw's nearest boundary show it. The generator's margins are its record (one per draw).
    @Test(arguments: ["hello", "tags", "capped"], GoldenRun.allCases)
    func tokensEqualUpstream(name: String, run: GoldenRun) throws {
        let golden = try TestResources.decoded("\(name).json", as: TestResources.Case.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.model)
        let ids = try encoder.ids(for: golden.text)
        #expect(ids == golden.textIds.map(EmbeddingIDs.row(ofTextID:)) + [EmbeddingIDs.startOfSpeech])
        let recorded = try #require(golden.margins, "the golden records no margins; run make_testdata.py")
        #expect(recorded.count == golden.tokens.count + (name == "capped" ? 0 : 1))
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let model = try TestResources.languageModel(maximumNewTokens: golden.maxGenLen, threads: run.threads)
        #expect(model.layers == 2 && model.heads == 2 && model.headSize == 16)
        var seen: [Int] = []
        let (tokens, margins) = try run.measured {
            try model.generate(.init(voice: voice, ids: ids, seed: golden.seed)) { seen.append($0) }
        }
        print("Chatterbox \(name) (\(run)): \(tokens.count) tokens, upstream \(golden.tokens.count), least margin on "
              + "Chorus's logits \(margins.map(\.least).min() ?? .infinity), recorded \(recorded.min() ?? 0)")
        #expect(tokens == golden.tokens)
        try run.requireMargins(margins, atLeast: TestResources.leastMargin)
        #expect(margins.count == recorded.count)
        #expect(seen.prefix(tokens.count).elementsEqual(tokens))
        if name == "capped" {
            #expect(tokens.count == 1 + golden.maxGenLen)
        } else {
            #expect(tokens.count < 1 + golden.maxGenLen)
        }
        // A second utterance reuses the kept cache buffers and draws the same.
        #expect(try run { try model.generate(.init(voice: voice, ids: ids, seed: golden.seed)) { _ in } } == tokens)
    }

    /// The perturbation is real: with it on, the logits a sampler sees differ from the model's.
    @Test func perturbationChangesLogits() throws {
        var logits: [Float] = [1, -2, 3, 0.5, 4]
        let original = logits
        var sampler = LogitPerturbation.$active.withValue(LogitPerturbation(size: 1e-5)) {
            TokenSampler([GreedyDraw()], vocabularySize: logits.count, random: SeededRandom(seed: 1))
        }
        _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
        #expect(logits != original)
        #expect(zip(logits, original).allSatisfy { abs($0 - $1) <= 1.01e-5 * abs($1) })
        #expect(zip(logits, original).contains { $0 > $1 } && zip(logits, original).contains { $0 < $1 })
    }

    @Test func defaultsAreUpstreams() {
        #expect(LanguageModel.maximumNewTokens == 1000)
        #expect(ChatterboxSampling.defaults == .upstream(temperature: 0.8, topK: 1000, topP: 0.95, repetitionPenalty: 1.2))
        let steps = ChatterboxSampling.defaults.steps.map { String(describing: type(of: $0)) }
        #expect(steps == ["Temperature", "TopK", "TopP", "UpstreamPenalty", "LikelyFirstDraw"])
        // Hugging Face's top-k keeps the tokens tied with the k-th (float16 logits tie often).
        #expect((ChatterboxSampling.defaults.steps[1] as? TopK).map { $0.k == 1000 && $0.keepsTies } == true)
        #expect(ChatterboxSampling.modelCard.steps.map { String(describing: type(of: $0)) } == ["UpstreamPenalty", "GreedyDraw"])
    }

    /// The penalty's history: [6561] at the first draw only, then the drawn tokens.
    @Test func penaltyHistoryIsUpstreams() throws {
        // Exact arithmetic: no perturbation, even with CHORUS_TEST_PERTURB set.
        try LogitPerturbation.$active.withValue(.off) {
            let (start, ten, penalty): (Float, Float, Float) = (2.4, 2.6, 1.2)
            var logits = [Float](repeating: 0, count: EmbeddingIDs.speechVocabulary)
            logits[EmbeddingIDs.startOfSpeech] = start
            logits[10] = ten
            logits[11] = -1.0
            var sampler = TokenSampler([UpstreamPenalty(penalty: 1.2), GreedyDraw()], vocabularySize: logits.count,
                                       random: SeededRandom(seed: 1))
            var first = logits
            _ = try first.withUnsafeMutableBufferPointer { try sampler.next($0) }
            #expect(first[EmbeddingIDs.startOfSpeech] == start / penalty)
            #expect(first[10] == ten)
            var second = logits
            let drawn = try second.withUnsafeMutableBufferPointer { try sampler.next($0) }
            // Token 10 was drawn first: penalised now; 6561 no longer, so it wins.
            #expect(second[10] == ten / penalty)
            #expect(second[EmbeddingIDs.startOfSpeech] == start)
            #expect(drawn == EmbeddingIDs.startOfSpeech)
            // The model card keeps 6561 in every step's history.
            var card = TokenSampler(ChatterboxSampling.modelCard.steps, vocabularySize: logits.count, random: SeededRandom(seed: 1))
            var a = logits, b = logits
            _ = try a.withUnsafeMutableBufferPointer { try card.next($0) }
            _ = try b.withUnsafeMutableBufferPointer { try card.next($0) }
            #expect(a[EmbeddingIDs.startOfSpeech] == start / penalty && b[EmbeddingIDs.startOfSpeech] == start / penalty)
            #expect(b[11] == -1.0 && b[10] == ten / penalty)
        }
    }

    /// The steps run in upstream's order: temperature, top-k, top-p, then the penalty on what is left.
    @Test func samplingOrderIsUpstreams() throws {
        // Exact arithmetic: no perturbation, even with CHORUS_TEST_PERTURB set.
        try LogitPerturbation.$active.withValue(.off) {
            // Three tokens, the penalised one first by raw logit: top-k 2 keeps 0 and 1 before the penalty moves 0 down.
            var logits: [Float] = [2.0, 1.9, 1.0]
            let steps = ChatterboxSampling.upstream(temperature: 0.5, topK: 2, topP: 1, repetitionPenalty: 1.5).steps
            var sampler = TokenSampler(steps, vocabularySize: 3, random: SeededRandom(seed: 3), history: [])
            _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
            #expect(sampler.state.candidates == [0, 1])
            #expect(logits[0] == 4.0 && logits[1] == 3.8)
            var next: [Float] = [2.0, 1.9, 1.0]
            let drawnBefore = sampler.state.history
            _ = try next.withUnsafeMutableBufferPointer { try sampler.next($0) }
            // The drawn token was penalised after top-k, so the candidates are the raw top two, reordered.
            let penalised = drawnBefore[0]
            #expect(Set(sampler.state.candidates) == [0, 1])
            #expect(next[penalised] == [Float(4.0), 3.8][penalised] / 1.5)
            #expect(sampler.state.candidates.first == (penalised == 0 ? 1 : 0))
        }
    }

    /// A model whose every step says 6562: the first draw is kept (upstream does not check it), the second
    /// ends generation, and the id filter drops the kept 6562 before decoding.
    @Test func firstDrawIsNotCheckedForStop() throws {
        struct AlwaysStop: AutoregressiveModel {
            var steps = 0
            func logits() throws -> Tensor {
                var row = [Float](repeating: -10, count: EmbeddingIDs.speechVocabulary)
                row[EmbeddingIDs.stopOfSpeech] = 10
                return try Tensor(row, shape: [row.count])
            }
            mutating func prefill(cache: KVCache) throws -> Tensor { try logits() }
            mutating func step(_ token: Int, cache: KVCache) throws -> Tensor { steps += 1; return try logits() }
        }
        var model = AlwaysStop()
        var sampler = TokenSampler(ChatterboxSampling.defaults.steps, vocabularySize: EmbeddingIDs.speechVocabulary,
                                   random: SeededRandom(seed: 5))
        let tokens = try DecodeLoop.run(&model, sampler: &sampler, cache: KVCache(pool: KVCachePool(), tensorCount: 0, longest: 4),
                                        maximumLength: 1001, isStop: LanguageModel.stopRule())
        #expect(tokens == [EmbeddingIDs.stopOfSpeech])
        #expect(model.steps == 1)
        #expect(ConditionalDecoder.speechTokens(from: tokens + [5, 6561, 6562, 7]) == [5, 7, 4299, 4299, 4299])
    }

    /// The model card's greedy loop: no randomness (the seed changes nothing), the same loop rules.
    @Test func greedyModeIsDeterministic() throws {
        let golden = try TestResources.decoded("hello.json", as: TestResources.Case.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.model)
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let model = try TestResources.languageModel(sampling: .modelCard, maximumNewTokens: 60)
        let ids = try encoder.ids(for: golden.text)
        let a = try model.generate(.init(voice: voice, ids: ids, seed: 1)) { _ in }
        let b = try model.generate(.init(voice: voice, ids: ids, seed: 99)) { _ in }
        #expect(a == b)
        #expect(a.count <= 61 && !a.contains(EmbeddingIDs.stopOfSpeech))
        let sampled = try TestResources.languageModel(maximumNewTokens: 60).generate(.init(voice: voice, ids: ids, seed: 1)) { _ in }
        #expect(sampled != a)
    }

    @Test func throwingFromOnTokenEndsGeneration() throws {
        let golden = try TestResources.decoded("capped.json", as: TestResources.Case.self)
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let model = try TestResources.languageModel()
        var count = 0
        #expect(throws: CancellationError.self) {
            try model.generate(.init(voice: voice, ids: golden.textIds.map(EmbeddingIDs.row(ofTextID:)) + [6561], seed: 1)) { _ in
                count += 1
                if count == 7 { throw CancellationError() }
            }
        }
        #expect(count == 7)
    }

    /// upstream's loop ends, without a draw, when every processed logit is -inf (`T3.inference_turbo`: the check
    /// before each later draw); at the first draw upstream has no check and torch.multinomial fails, so Chorus
    /// throws. A model whose third logits row is all -inf: two tokens, the loop ends after that step.
    @Test func everyLogitMinusInfinityEndsTheLoop() throws {
        struct MaskedAt: AutoregressiveModel {
            let call: Int
            var calls = 0
            mutating func logits() throws -> Tensor {
                calls += 1
                var row = [Float](repeating: -10, count: EmbeddingIDs.speechVocabulary)
                row[42] = 10
                if calls == call { row = row.map { _ in -.infinity } }
                return try Tensor(row, shape: [row.count])
            }
            mutating func prefill(cache: KVCache) throws -> Tensor { try logits() }
            mutating func step(_ token: Int, cache: KVCache) throws -> Tensor { try logits() }
        }
        func run(_ model: inout MaskedAt, sampling: ChatterboxSampling) throws -> [Int] {
            var sampler = TokenSampler(sampling.steps, vocabularySize: EmbeddingIDs.speechVocabulary, random: SeededRandom(seed: 5))
            return try DecodeLoop.run(&model, sampler: &sampler, cache: KVCache(pool: KVCachePool(), tensorCount: 0, longest: 4),
                                      maximumLength: 1001, isStop: LanguageModel.stopRule())
        }
        var late = MaskedAt(call: 3)
        #expect(try run(&late, sampling: .defaults) == [42, 42])
        #expect(late.calls == 3)
        // Every step of upstream's sampling leaves an all -inf row all -inf (nothing else to draw from).
        var anyStep = MaskedAt(call: 2)
        #expect(try run(&anyStep, sampling: .upstream(temperature: 1, topK: 0, topP: 1, repetitionPenalty: 1)) == [42])
        var first = MaskedAt(call: 1)
        #expect(throws: ChatterboxError.noFiniteLogit) { try run(&first, sampling: .defaults) }
    }

    /// The cache's buffers go back to its pool when a generation fails or is cancelled mid-way: two buffers per
    /// cache tensor are out while it runs, none after (the task ending alone would not show this).
    @Test func cacheIsReleasedOnErrorAndCancel() async throws {
        let golden = try TestResources.decoded("capped.json", as: TestResources.Case.self)
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let model = try TestResources.languageModel()
        let prompt = LanguageModel.Prompt(voice: voice, ids: golden.textIds.map(EmbeddingIDs.row(ofTextID:)) + [6561], seed: 1)
        let perUtterance = 2 * 2 * model.layers
        var inUse: [Int] = []
        #expect(throws: CancellationError.self) {
            try model.generate(prompt) { _ in
                inUse.append(model.cachePool.buffersInUse)
                if inUse.count == 7 { throw CancellationError() }
            }
        }
        #expect(inUse.last == perUtterance)
        #expect(model.cachePool.buffersInUse == 0)

        let seen = Locked<[Int]>([])
        let job = Task {
            try await InferenceExecutor.shared.run {
                try model.generate(prompt) { _ in
                    let count = seen.withLock { $0.append(model.cachePool.buffersInUse); return $0.count }
                    // Hold the fifth token until the test has cancelled the job, so the cancel lands
                    // mid-generation; the loop's own check after the token then ends it. The bound (5 min) only
                    // keeps a broken cancel from hanging the run: with the whole suite running on 2 cores the
                    // test's task has waited over 20 s for a thread before it could cancel.
                    var waited = 0
                    while count == 5, (try? InferenceExecutor.checkCancellation()) != nil, waited < 300_000 {
                        usleep(1_000)
                        waited += 1
                    }
                }
            }
        }
        while seen.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.cachePool.buffersInUse == perUtterance)
        job.cancel()
        do {
            _ = try await job.value
            Issue.record("the cancelled generation ran to its end")
        } catch {
            #expect(error is CancellationError, "\(error)")
        }
        #expect(seen.withLock { $0.count } == 5)
        #expect(model.cachePool.buffersInUse == 0)
    }
}
