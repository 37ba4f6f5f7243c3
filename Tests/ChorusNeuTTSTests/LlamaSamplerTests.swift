import ChorusDSP
import Foundation
import Testing
@testable import ChorusGeneration
@testable import ChorusNeuTTS

/// NeuTTS's GGUF sampling chain against llama.cpp's own samplers (scripts/testdata/neutts/
/// make_llama_sampler_goldens.py: llama-cpp-python's chain for neutts' arguments run with llama_sampler_apply on
/// given logits). The candidates after top-k, top-p and min-p are compared exactly, in order, and the probabilities
/// the draw uses within float32 rounding. The random streams differ (llama.cpp's dist draws from std::mt19937,
/// Chorus from SplitMix64), so the draw is compared by giving Chorus's probabilities the uniform llama.cpp drew
/// (recorded by the generator and checked there against dist's choice): the same token. Every case's cuts and
/// draw keep a margin of 1e-5 of the largest |logit|, far above float32-versus-float64 sums.
@Suite struct LlamaSamplerTests {
    struct Golden: Decodable {
        struct Case: Decodable {
            var seed: UInt64
            var logits: [Float]
            var afterStage: [String: [Int]]
            var probabilities: [Double]
            var uniform: Double
            var token: Int
            var margins: [String: Double]
        }
        var upstream: [String: String]
        var chain: [String: Double]
        var threshold: Double
        var cases: [String: Case]
    }

    /// Notes the candidates, in order, and their probabilities where it stands in the list.
    final class Capture: SamplingStep, @unchecked Sendable {
        var candidates: [Int] = []
        var probabilities: [Double] = []
        func apply(to state: inout SamplingState) {
            // The weights are exp(logit - largest); `state.total` may still be the sum over a wider set that a
            // cut narrowed (the draw normalises by its own sum), so the capture sums the candidates itself.
            state.softmaxOverCandidates()
            candidates = state.candidates
            let sum = state.candidates.reduce(0) { $0 + state.weight($1) }
            probabilities = state.candidates.map { state.weight($0) / sum }
        }
    }

    @Test func ggufChainEqualsLlamaCpp() throws {
        // Exact arithmetic: no perturbation, even with CHORUS_TEST_PERTURB set.
        try LogitPerturbation.$active.withValue(.off) {
            let url = TestResources.root.appendingPathComponent("llama/sampler.json")
            let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
            #expect(golden.upstream["llama-cpp-python"] == "0.3.36")
            #expect(golden.cases.count == 3)
            guard case .gguf(let temperature, let topK, let topP, let minP) = NeuTTSSampling.ggufDefaults else {
                Issue.record("ggufDefaults is not the GGUF chain")
                return
            }
            #expect(Double(temperature) == golden.chain["temperature"] && Double(topK) == golden.chain["top_k"])
            #expect(topP == golden.chain["top_p"] && golden.chain["min_p"].map(Float.init) == minP)
            #expect(golden.chain["typical_p"] == 1 && golden.chain["penalty_repeat"] == 1, "llama.cpp stages Chorus has no step for")

            for (name, expected) in golden.cases.sorted(by: { $0.key < $1.key }) {
                #expect(expected.margins.values.allSatisfy { $0 >= golden.threshold }, "\(name)")
                // Chorus's own chain, a capture after each cut.
                let steps = NeuTTSSampling.ggufDefaults.steps(stopToken: expected.logits.count)
                let captures = (0..<3).map { _ in Capture() }
                let cuts: [any SamplingStep] = [steps[0], captures[0], steps[1], captures[1], steps[2], captures[2]]
                let rest = Array(steps[3...])
                #expect(steps[0] is TopK && steps[1] is TopP && steps[2] is MinP && rest.last is CategoricalDraw)
                var sampler = TokenSampler(cuts + rest, vocabularySize: expected.logits.count, random: SeededRandom(seed: expected.seed))
                var logits = expected.logits
                _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }

                #expect(captures[0].candidates == expected.afterStage["top_k"], "\(name): top-k")
                #expect(captures[1].candidates == expected.afterStage["top_p"], "\(name): top-p")
                #expect(captures[2].candidates == expected.afterStage["min_p"], "\(name): min-p")
                #expect(expected.afterStage["temp"] == expected.afterStage["min_p"])
                let probabilities = captures[2].probabilities
                #expect(probabilities.count == expected.probabilities.count, "\(name)")
                let largest = zip(probabilities, expected.probabilities).map { abs($0 - $1) }.max() ?? .infinity
                #expect(largest <= 1e-6, "\(name): probabilities \(largest) apart")

                // SeededRandom.categorical's rule with llama.cpp's uniform.
                let target = expected.uniform * probabilities.reduce(0, +)
                var running = 0.0
                let chosen = probabilities.firstIndex { running += $0; return target < running } ?? probabilities.count - 1
                #expect(captures[2].candidates[chosen] == expected.token, "\(name)")
                print("NeuTTS GGUF chain against llama.cpp, \(name): candidates \(captures.map(\.candidates.count)) equal, "
                      + "probabilities within \(largest), token \(expected.token) equal, least margin \(expected.margins.values.min() ?? 0)")
            }
        }
    }
}
