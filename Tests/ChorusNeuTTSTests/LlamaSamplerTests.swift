import ChorusDSP
import Foundation
import Testing
@testable import ChorusGeneration
@testable import ChorusNeuTTS

/// NeuTTS's GGUF sampling chain against llama.cpp's own samplers (scripts/testdata/neutts/
/// make_llama_sampler_goldens.py: llama-cpp-python's chain for neutts' arguments run with llama_sampler_apply on
/// given logits). The candidates after top-k, top-p and min-p are compared exactly, in order, and the probabilities
/// the draw uses within float32 rounding. The random streams differ (llama.cpp's dist draws from std::mt19937,
/// Chorus from SplitMix64), so Chorus's sampler is given a SplitMix64 seed whose first uniform is the one llama.cpp
/// drew (recorded by the generator and checked there against dist's choice), and its own draw must be llama.cpp's
/// token. Every case's cuts and draw keep a margin of 1e-5 of the largest |logit|, far above float32-versus-float64
/// sums.
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

    /// A SplitMix64 seed whose first `uniform()` is `uniform` to its 53 bits: SplitMix64's output is a bijection
    /// of its state (a sum, then xor-shifts and odd multipliers, each undone below), so the state that gives a
    /// chosen output exists and is found by undoing the steps.
    static func seed(firstUniform uniform: Double) -> UInt64 {
        func undoShift(_ y: UInt64, _ shift: UInt64) -> UInt64 {
            var x = y
            for _ in 0..<(64 / shift + 1) { x = y ^ (x >> shift) }
            return x
        }
        func inverse(_ odd: UInt64) -> UInt64 {
            var x = odd
            for _ in 0..<6 { x = x &* (2 &- odd &* x) }
            return x
        }
        var z = UInt64(uniform * 0x1p53) << 11
        z = undoShift(z, 31) &* inverse(0x94D0_49BB_1331_11EB)
        z = undoShift(z, 27) &* inverse(0xBF58_476D_1CE4_E5B9)
        return undoShift(z, 30) &- 0x9E37_79B9_7F4A_7C15
    }

    @Test func seedGivesTheUniformAsked() {
        for uniform in [0.0, 0.25, 0.7310585786300049, 1 - 0x1p-53] {
            var random = SeededRandom(seed: Self.seed(firstUniform: uniform))
            #expect(random.uniform() == uniform)
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

                // Chorus's own chain and draw, its first uniform llama.cpp's.
                let seed = Self.seed(firstUniform: expected.uniform)
                var random = SeededRandom(seed: seed)
                #expect(abs(random.uniform() - expected.uniform) <= 0x1p-53, "\(name): the seed gives llama.cpp's uniform")
                var drawing = TokenSampler(steps, vocabularySize: expected.logits.count, random: SeededRandom(seed: seed))
                var fresh = expected.logits
                let token = try fresh.withUnsafeMutableBufferPointer { try drawing.next($0) }
                #expect(token == expected.token, "\(name): Chorus drew \(token), llama.cpp \(expected.token)")
                print("NeuTTS GGUF chain against llama.cpp, \(name): candidates \(captures.map(\.candidates.count)) equal, "
                      + "probabilities within \(largest), token \(expected.token) equal, least margin \(expected.margins.values.min() ?? 0)")
            }
        }
    }
}
