import Foundation
import Testing
import ChorusDSP
@testable import ChorusGeneration

/// Draws' margins measured on the sampler's own logits, and the perturbation aimed at each draw's boundary.
@Suite struct DrawMarginTests {
    /// Gaussian logits of `count` tokens, `spread` wide, from `seed`.
    static func randomLogits(_ count: Int, seed: UInt64, spread: Float = 3) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in random.gaussian() * spread }
    }

    static let steps: [any SamplingStep] = [Temperature(0.8), TopK(100, keepsTies: true), TopP(0.9), CategoricalDraw()]

    /// One draw from `logits` with `perturbation` in force (the log, when given, records its margins; else the
    /// task's, as a `GoldenRun.measured` body's), through `steps` after `history`.
    static func draw(_ logits: [Float], seed: UInt64, perturbation: LogitPerturbation? = .off,
                     log: DrawMarginLog? = nil, steps: [any SamplingStep] = DrawMarginTests.steps, history: [Int] = []) throws -> Int {
        try DrawMarginLog.$active.withValue(log ?? DrawMarginLog.active) {
            try LogitPerturbation.$active.withValue(perturbation) {
                var sampler = TokenSampler(steps, vocabularySize: logits.count, random: SeededRandom(seed: seed),
                                           history: history)
                var values = logits
                return try values.withUnsafeMutableBufferPointer { try sampler.next($0) }
            }
        }
    }

    /// The margin says how far the draw is from changing: moved against its nearest boundary by half its margin
    /// (of the step's largest |logit|) every draw stays; by one and a half, every draw whose nearest boundary is
    /// the uniform's place changes (the cumulative probability crosses it), while the hashed pattern of the same
    /// size leaves most of them alone. A plain draw over every token, whose one boundary is the uniform's place.
    @Test func aimedPerturbationChangesADrawPastItsMarginOnly() throws {
        var crossed = 0, hashedChanged = 0
        let steps: [any SamplingStep] = [Temperature(0.8), CategoricalDraw()]
        for seed in UInt64(1)...60 {
            let logits = Self.randomLogits(400, seed: seed)
            let log = DrawMarginLog()
            let token = try Self.draw(logits, seed: seed, log: log, steps: steps)
            let margin = try #require(log.margins.first)
            #expect(log.margins.count == 1)
            let least = margin.least
            #expect(least > 0 && least.isFinite, "seed \(seed): \(margin)")
            // A margin is a first-order bound: a move of e M no longer small against the logits' spread (a margin of
            // 1e-2 here, a move of about 0.1) bends the probabilities past it.
            guard least < 1e-2, margin.kinds[.draw] == least else { continue }
            #expect(try Self.draw(logits, seed: seed, perturbation: .aimed(size: Float(least / 2)), steps: steps) == token,
                    "seed \(seed): \(margin)")
            #expect(try Self.draw(logits, seed: seed, perturbation: .aimed(size: Float(least * 1.5)), steps: steps) != token,
                    "seed \(seed): \(margin)")
            crossed += 1
            if try Self.draw(logits, seed: seed, perturbation: LogitPerturbation(size: Float(least * 1.5)),
                             steps: steps) != token {
                hashedChanged += 1
            }
        }
        print("Aimed perturbation: \(crossed) draws moved past their margin, all changed; the hashed pattern changed \(hashedChanged)")
        #expect(crossed >= 10)
        #expect(hashedChanged < crossed)
    }

    /// The units of scripts/testdata/draw_margins.py: on logits [2, 1, 0] (M 2, every token a candidate ordered
    /// by value), the order margin is the gap 1 over 2 M, and the draw's is the uniform's distance from the
    /// cumulative probability beside it over 2 M S (1 - S).
    @Test func marginsAreInTheGeneratorsUnits() throws {
        let logits: [Float] = [2, 1, 0]
        let log = DrawMarginLog()
        let token = try DrawMarginLog.$active.withValue(log) {
            try LogitPerturbation.$active.withValue(.off) {
                var sampler = TokenSampler([TopK(3), CategoricalDraw()], vocabularySize: 3, random: SeededRandom(seed: 7))
                var values = logits
                return try values.withUnsafeMutableBufferPointer { try sampler.next($0) }
            }
        }
        var random = SeededRandom(seed: 7)
        let uniform = random.uniform()
        let weights = logits.map { exp(Double($0)) }
        let total = weights.reduce(0, +)
        let before = weights[..<token].reduce(0, +) / total
        let after = before + weights[token] / total
        func spread(_ share: Double) -> Double { 2 * 2 * share * (1 - share) }
        let expected = min(before > 0 ? (uniform - before) / spread(before) : .infinity,
                           after < 1 ? (after - uniform) / spread(after) : .infinity)
        let margin = try #require(log.margins.first)
        // float32 exponentials against float64 ones: shares differ by about 1e-7.
        #expect(abs((margin.kinds[.draw] ?? -1) - expected) < 1e-6, "\(margin), expected \(expected)")
        #expect(margin.kinds[.order] == 0.25)
        #expect(margin.kinds[.topK] == nil, "top-k 3 of 3 tokens cuts nothing")
    }

    /// Measuring runs the steps twice per token; the draws, the history the penalty sees and the random source
    /// must come out as without it.
    @Test func measuringChangesNoDraw() throws {
        let logits = Self.randomLogits(300, seed: 5)
        let steps: [any SamplingStep] = [RepetitionPenalty(1.3), Temperature(0.9), TopK(40), TopP(0.8, mass: .everyToken),
                                         RepetitionAwareDraw(window: 10, tauR: 0.1)]
        func tokens(measured: Bool) throws -> ([Int], [DrawMargin]) {
            let log = DrawMarginLog()
            let drawn = try DrawMarginLog.$active.withValue(measured ? log : nil) {
                try LogitPerturbation.$active.withValue(.off) {
                    var sampler = TokenSampler(steps, vocabularySize: logits.count, random: SeededRandom(seed: 3))
                    return try (0..<40).map { step in
                        var values = logits.map { $0 + Float(step % 3) * 0.1 }
                        return try values.withUnsafeMutableBufferPointer { try sampler.next($0) }
                    }
                }
            }
            return (drawn, log.margins)
        }
        let (plain, none) = try tokens(measured: false)
        let (measured, margins) = try tokens(measured: true)
        #expect(plain == measured)
        #expect(none.isEmpty && margins.count == 40)
        // The redraw of a repeated token is measured too.
        #expect(margins.contains { $0.kinds[.redraw] != nil })
        // Every draw and top-p cut is measured; the top-k cut only where the top-p kept all 40 (`DrawAnalysis`).
        #expect(margins.allSatisfy { $0.kinds[.draw] != nil && $0.kinds[.topP] != nil })
    }

    /// A golden run's check throws, naming the draw, when one keeps less than the threshold.
    @Test func measuredRunThrowsBelowTheThreshold() throws {
        let logits = Self.randomLogits(400, seed: 2)
        let (token, margins) = try GoldenRun.oneThread.measured { try Self.draw(logits, seed: 2) }
        #expect(token == (try Self.draw(logits, seed: 2)))
        try #require(margins.count == 1)
        try GoldenRun.oneThread.requireMargins(margins, atLeast: margins[0].least)
        #expect(throws: GoldenRun.ThinDraw.self) {
            try GoldenRun.oneThread.requireMargins(margins, atLeast: margins[0].least * 2)
        }
    }

    /// Two candidates a repetition penalty made equal (5 halved onto 2.5) came from different logits, which any
    /// change of the model's output parts: drawing either is a zero order margin. Equal in the model's own logits,
    /// they move together and are no boundary.
    @Test func aTieTheStepsMadeIsAZeroMargin() throws {
        let steps: [any SamplingStep] = [RepetitionPenalty(2), TopK(3), CategoricalDraw()]
        var tied = 0
        for seed in UInt64(1)...12 {
            let made = DrawMarginLog(), equal = DrawMarginLog()
            let token = try Self.draw([2.5, 0.1, 5, -1], seed: seed, log: made, steps: steps, history: [2])
            let same = try Self.draw([2.5, 0.1, 2.5, -1], seed: seed, log: equal, steps: steps)
            let margin = try #require(made.margins.first), control = try #require(equal.margins.first)
            guard token != 1, same != 1 else { continue }
            tied += 1
            #expect(margin.kinds[.order] == 0, "seed \(seed): \(margin)")
            #expect((control.kinds[.order] ?? .infinity) > 0, "seed \(seed): \(control)")
        }
        #expect(tied >= 6)
    }

    /// upstream CosyVoice's nucleus sampling stops at top-p or top-k, whichever comes first: a top-p over every
    /// token's mass that keeps one token makes the top-k cut (here a gap of 1e-5 between the 3rd and 4th logits)
    /// no boundary of the draw; with the mass over the candidates the cut decides which tokens share it, and stays.
    @Test func aTopKCutTheTopPStopsShortOfIsNoMargin() throws {
        let logits: [Float] = [10, 1, 0.5, 0.49999, -3]
        let everyToken = DrawMarginLog(), candidates = DrawMarginLog()
        _ = try Self.draw(logits, seed: 1, log: everyToken,
                          steps: [TopK(3), TopP(0.5, mass: .everyToken), CategoricalDraw()])
        _ = try Self.draw(logits, seed: 1, log: candidates,
                          steps: [TopK(3), TopP(0.5, mass: .candidates), CategoricalDraw()])
        #expect(try #require(everyToken.margins.first).kinds[.topK] == nil)
        let kept = try #require(candidates.margins.first)
        let cut = try #require(kept.kinds[.topK])
        #expect(abs(cut - 1e-5 / 20) < 1e-7)
    }

    @Test func environmentNamesHashedOrAimedPerturbations() {
        #expect(LogitPerturbation(environment: "1e-5") == LogitPerturbation(size: 1e-5))
        #expect(LogitPerturbation(environment: "aimed:1e-5") == .aimed(size: 1e-5))
        #expect(LogitPerturbation(environment: "aimed:1e-5")?.aimed == true)
        #expect(LogitPerturbation(environment: "0") == nil)
        #expect(LogitPerturbation(environment: "aimed:") == nil)
        #expect(LogitPerturbation(environment: "large") == nil)
    }
}
