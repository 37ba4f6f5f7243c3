import Foundation
import Testing
import ChorusDSP
@testable import ChorusGeneration

/// Logits whose softmax is `probabilities`.
func logits(_ probabilities: [Double]) -> [Float] { probabilities.map { Float(log($0)) } }

/// `steps` applied once to `values` (changed in place); the state afterwards.
func applied(_ steps: [any SamplingStep], to values: inout [Float], history: [Int] = [], generated: Int = 0,
             seed: UInt64 = 1) throws -> SamplingState {
    var state = SamplingState(vocabularySize: values.count, history: history, random: SeededRandom(seed: seed))
    state.generated = generated
    try values.withUnsafeMutableBufferPointer { buffer in
        state.begin(buffer)
        for step in steps { try step.apply(to: &state) }
    }
    return state
}

@Suite struct SamplingStepTests {
    @Test func temperatureDividesEveryLogitAndOneChangesNothing() throws {
        var values: [Float] = [1, 2, -4]
        _ = try applied([Temperature(0.5)], to: &values)
        #expect(values == [2, 4, -8])
        _ = try applied([Temperature(1)], to: &values)
        #expect(values == [2, 4, -8])
    }

    @Test func topKKeepsTheLargestWithTiesByIndex() throws {
        var values: [Float] = [0.1, 0.5, 0.4, 0.5]
        let state = try applied([TopK(2)], to: &values)
        #expect(!state.allCandidates)
        #expect(state.candidates == [1, 3])
        #expect(values == [0.1, 0.5, 0.4, 0.5])
    }

    /// Hugging Face's TopKLogitsWarper masks only what is less likely than the k-th token, so tokens tied with it
    /// stay; torch.topk keeps exactly k. Both from every token and from candidates an earlier step left.
    @Test func topKKeepsTiesAtTheKthPlaceWhenAsked() throws {
        var values: [Float] = [0.2, 0.9, 0.5, 0.1, 0.5, 0.5, 0.3]
        #expect(try applied([TopK(2)], to: &values).candidates == [1, 2])
        #expect(try applied([TopK(2, keepsTies: true)], to: &values).candidates == [1, 2, 4, 5])
        #expect(try applied([TopK(3, keepsTies: true)], to: &values).candidates == [1, 2, 4, 5])
        #expect(try applied([TopK(4, keepsTies: true)], to: &values).candidates == [1, 2, 4, 5])
        #expect(try applied([TopK(1, keepsTies: true)], to: &values).candidates == [1])
        #expect(try applied([TopK(6), TopK(2, keepsTies: true)], to: &values).candidates == [1, 2, 4, 5])
        #expect(try applied([TopK(6), TopK(2)], to: &values).candidates == [1, 2])
        #expect(values == [0.2, 0.9, 0.5, 0.1, 0.5, 0.5, 0.3])
    }

    @Test func topPKeepsTokensWhileTheMassBeforeThemIsBelowP() throws {
        // 0.6, then 0.25 is kept (0.6 < 0.8 before it), then 0.1 is not (0.85 before it).
        var values = logits([0.6, 0.25, 0.1, 0.05])
        #expect(try applied([TopP(0.8)], to: &values).candidates == [0, 1])
        // The first token always stays.
        #expect(try applied([TopP(0.1)], to: &values).candidates == [0])
    }

    @Test func topPAfterTopKRenormalisesOrNotAsAsked() throws {
        // Top-2 of [0.4, 0.3, 0.2, 0.1]: renormalised, 0.4 / 0.7 = 0.57 already reaches 0.5 (Hugging Face);
        // over every token, 0.4 is below 0.5, so the second stays too (CosyVoice's nucleus).
        var values = logits([0.4, 0.3, 0.2, 0.1])
        #expect(try applied([TopK(2), TopP(0.5)], to: &values).candidates == [0])
        #expect(try applied([TopK(2), TopP(0.5, mass: .everyToken)], to: &values).candidates == [0, 1])
    }

    @Test func minPKeepsTokensAtLeastPTimesTheMostLikely() throws {
        // 0.25 x 0.5 = 0.125: 0.5, 0.2 and 0.15 stay, 0.1 and 0.05 go.
        var values = logits([0.2, 0.5, 0.1, 0.15, 0.05])
        #expect(try applied([MinP(0.25)], to: &values).candidates == [0, 1, 3])
        // After top-k the order (most likely first) is kept.
        #expect(try applied([TopK(4), MinP(0.25)], to: &values).candidates == [1, 0, 3])
    }

    @Test func repetitionPenaltyFollowsHuggingFaceOncePerDistinctToken() throws {
        // Positive logits divided, negative multiplied; token 0 occurs twice but is penalised once.
        var values: [Float] = [2, -1, 0.5, 3, -.infinity]
        _ = try applied([RepetitionPenalty(2)], to: &values, history: [0, 1, 0, 4])
        #expect(values == [1, -2, 0.5, 3, -.infinity])
        // The seen-marks were cleared: the same history penalises again on the next call.
        _ = try applied([RepetitionPenalty(2)], to: &values, history: [0, 1, 0, 4])
        #expect(values == [0.5, -4, 0.5, 3, -.infinity])
    }

    @Test func stopTokensAreMaskedOnlyBeforeTheMinimumLength() throws {
        var values: [Float] = [0, 1, 5, 5]
        _ = try applied([SuppressStopTokens(2..<4, until: 3)], to: &values, generated: 2)
        #expect(values == [0, 1, -.infinity, -.infinity])
        var later: [Float] = [0, 1, 5, 5]
        _ = try applied([SuppressStopTokens(2..<4, until: 3)], to: &later, generated: 3)
        #expect(later == [0, 1, 5, 5])
        // Masked after top-k too: the stop tokens leave the candidates.
        var ranked: [Float] = [0, 1, 5, 5]
        #expect(try applied([TopK(3), SuppressStopTokens(2..<4, until: 3)], to: &ranked).candidates == [1])
    }

    @Test func greedyTakesTheMostLikelyCandidate() throws {
        var values: [Float] = [0.1, 0.7, 0.7, 0.2]
        #expect(try applied([GreedyDraw()], to: &values).token == 1)
        #expect(try applied([MinP(0.01), RepetitionPenalty(10), GreedyDraw()], to: &values, history: [1, 2]).token == 3)
    }

    @Test func categoricalDrawFollowsTheProbabilities() throws {
        let probabilities = [0.5, 0.3, 0.2] + [Double](repeating: 0, count: 300)
        var counts = [Int](repeating: 0, count: probabilities.count)
        var sampler = TokenSampler([CategoricalDraw()], vocabularySize: probabilities.count, random: SeededRandom(seed: 4))
        for _ in 0..<20_000 {
            var values = probabilities.map { $0 > 0 ? Float(log($0)) : -Float.infinity }
            counts[try values.withUnsafeMutableBufferPointer { try sampler.next($0) }] += 1
        }
        #expect(counts[3...].allSatisfy { $0 == 0 })
        for token in 0..<3 { #expect(abs(Double(counts[token]) / 20_000 - probabilities[token]) < 0.015) }
    }

    @Test func categoricalDrawAmongCandidatesUsesOneUniform() throws {
        // Candidates [1, 2] with probabilities 0.5 and 0.3: the uniform scaled to 0.8 picks 1 below 0.5.
        var values = logits([0.2, 0.5, 0.3])
        var random = SeededRandom(seed: 11)
        let u = random.uniform()
        let expected = u * (0.5 + 0.3) < 0.5 ? 1 : 2
        let state = try applied([TopK(2), CategoricalDraw()], to: &values, seed: 11)
        #expect(state.token == expected)
        var after = state.random
        #expect(after.next() == random.next())
    }

    /// upstream ras_sampling after "fix ras" (February 2026): the repeated token's score is set to -inf before
    /// the draw over every token, so that draw never returns it.
    @Test func rasSetsTheRepeatedTokensProbabilityToZeroBeforeTheFullDraw() throws {
        // The nucleus holds only token 0; it occurs once among the last 10 (>= 10 x 0.1), so a second
        // uniform draws over tokens 1 and 2 only, renormalised.
        let probabilities = [0.9, 0.05, 0.05]
        var drawn = Set<Int>()
        for seed in UInt64(0)..<40 {
            var values = logits(probabilities)
            let state = try applied([TopK(25), TopP(0.8, mass: .everyToken), RepetitionAwareDraw(window: 10, tauR: 0.1)],
                                    to: &values, history: [2, 2, 0], seed: seed)
            var probe = SeededRandom(seed: seed)
            _ = probe.uniform()
            #expect(state.token == probe.categorical([0, 0.05, 0.05]))
            drawn.insert(state.token ?? -1)
        }
        #expect(drawn == [1, 2], "token 0 holds 0.9 of the mass, yet it is never drawn again")
    }

    @Test func aListWithoutADrawSaysSo() throws {
        var sampler = TokenSampler([TopK(2)], vocabularySize: 3, random: SeededRandom(seed: 1))
        var values: [Float] = [1, 2, 3]
        #expect(throws: SamplingError.noDraw) { try values.withUnsafeMutableBufferPointer { try sampler.next($0) } }
    }
}
