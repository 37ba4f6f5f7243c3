import Foundation
import Testing
import ChorusDSP
@testable import ChorusGeneration

/// Upstream engines' sampling written as step lists, checked against plain float64 implementations.
@Suite struct SamplingChainTests {
    /// Chatterbox Turbo (`tts_turbo.py`): temperature 0.8, top-k 1000, top-p 0.95, then the repetition
    /// penalty 1.2 on what is left, softmax, multinomial.
    static let chatterbox: [any SamplingStep] = [
        Temperature(0.8), TopK(1000), TopP(0.95), RepetitionPenalty(1.2), CategoricalDraw(),
    ]

    /// NeuTTS (`neutts.py`, Hugging Face generate): the stop id masked until 50 tokens, temperature 1, top-k 50.
    static func neutts(stop: Int) -> [any SamplingStep] {
        [SuppressStopTokens(stop..<(stop + 1), until: 50), Temperature(1), TopK(50), CategoricalDraw()]
    }

    /// Chatterbox's chain the plain way: float64 softmax, a full stable sort, candidates walked in that order.
    func plainChatterbox(_ logits: [Float], history: [Int], random: inout SeededRandom) -> Int {
        var scores = logits.map { $0 / 0.8 }
        let order = scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        var kept = Array(order.prefix(1000))
        func probabilities(_ tokens: [Int]) -> [Double] {
            let top = tokens.map { Double(scores[$0]) }.max()!
            let e = tokens.map { exp(Double(scores[$0]) - top) }
            let sum = e.reduce(0, +)
            return e.map { $0 / sum }
        }
        let p = probabilities(kept)
        var count = 0
        var cumulative = 0.0
        while count < kept.count, cumulative < 0.95 {
            cumulative += p[count]
            count += 1
        }
        kept = Array(kept.prefix(count))
        for token in Set(history) where kept.contains(token) {
            scores[token] = scores[token] > 0 ? scores[token] / 1.2 : scores[token] * 1.2
        }
        return kept[random.categorical(probabilities(kept))]
    }

    @Test func chatterboxChainDrawsAsThePlainImplementation() throws {
        var noise = SeededRandom(seed: 21)
        let vocabulary = 6563
        let favoured = (0..<60).map { _ in Int(noise.next() % UInt64(vocabulary)) }
        var sampler = TokenSampler(Self.chatterbox, vocabularySize: vocabulary, random: SeededRandom(seed: 3),
                                   history: [6561], longest: 40)
        var reference = SeededRandom(seed: 3)
        var history = [6561]
        var disagreements = 0
        for _ in 0..<40 {
            var logits = noise.gaussians(vocabulary).map { $0 * 0.5 }
            for (rank, token) in favoured.enumerated() { logits[token] += 5 + Float(rank % 9) * 0.25 }
            let expected = plainChatterbox(logits, history: history, random: &reference)
            let token = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
            if token != expected { disagreements += 1 }
            history.append(expected)
        }
        #expect(disagreements == 0)
        #expect(sampler.state.history == history)
    }

    @Test func neuttsChainHoldsTheStopBackFor50TokensAndStaysInTheTop50() throws {
        let vocabulary = 1000, stop = 999
        var noise = SeededRandom(seed: 5)
        var sampler = TokenSampler(Self.neutts(stop: stop), vocabularySize: vocabulary, random: SeededRandom(seed: 9))
        var drawn: [Int] = []
        for _ in 0..<80 {
            var logits = noise.gaussians(vocabulary)
            logits[stop] = 4  // the most likely token by far
            // Before 50 tokens the top 50 are taken with the stop id masked.
            var masked = logits
            if drawn.count < 50 { masked[stop] = -.infinity }
            let top50 = Set(masked.indices.sorted { masked[$0] > masked[$1] }.prefix(50))
            let token = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
            #expect(top50.contains(token))
            drawn.append(token)
        }
        #expect(!drawn.prefix(50).contains(stop))
        #expect(drawn.suffix(30).contains(stop))
    }

    @Test func stepsAllocateNoBuffersPerToken() throws {
        // Every buffer the steps use lives in the state; after the first token none moves or grows. (Swift
        // gives no portable per-call allocation counter, so this checks the buffers, not the allocator.)
        let vocabulary = 6563
        var noise = SeededRandom(seed: 2)
        var sampler = TokenSampler(Self.chatterbox + [], vocabularySize: vocabulary, random: SeededRandom(seed: 1),
                                   history: [6561], longest: 100)
        func addresses(_ state: SamplingState) -> [Int] {
            func base<T>(_ array: [T]) -> Int { array.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } }
            return [base(state.weights), base(state.blocks), base(state.candidates), base(state.groupMaxima),
                    base(state.largestMaxima), base(state.seen), base(state.history),
                    state.candidates.capacity, state.history.capacity, state.largestMaxima.capacity]
        }
        var logits = noise.gaussians(vocabulary)
        _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
        let before = addresses(sampler.state)
        for _ in 0..<50 {
            logits = noise.gaussians(vocabulary)
            _ = try logits.withUnsafeMutableBufferPointer { try sampler.next($0) }
            #expect(addresses(sampler.state) == before)
        }
    }
}
