import ChorusDSP
import ChorusGeneration

/// How the next speech token is chosen from the decoder's distribution; each case is a list of
/// ChorusGeneration's sampling steps (see `steps(minimumLength:)`).
public enum Sampling: Sendable, Equatable {
    /// Repetition-aware sampling (VALL-E 2, upstream `ras_sampling`): a nucleus draw (top-p, at most
    /// top-k), redrawn from the whole distribution without it when the token already occurs
    /// `window x tauR` times or more among the last `window` tokens (upstream's "fix ras", February 2026).
    case repetitionAware(topP: Double, topK: Int, window: Int, tauR: Double)
    /// A draw among the `k` most likely tokens.
    case topK(Int)
    /// The most likely token, no randomness.
    case greedy

    /// Upstream's configuration: top-p 0.8, top-k 25, window 10, tau_r 0.1.
    public static let upstream = Sampling.repetitionAware(topP: 0.8, topK: 25, window: 10, tauR: 0.1)

    /// The steps that draw one token: upstream `sampling_ids` (FunAudioLLM/CosyVoice at ace7c47, March 2026)
    /// sets the score of id 6561 (`speech_token_size`) to -inf while fewer than `minimumLength` tokens exist,
    /// then runs the sampling function on those scores.
    ///
    /// Only 6561 is masked: end of speech (6562) and the other 198 stop ids can still end an utterance before its
    /// minimum length. Upstream pull request #1916 (open) calls that a bug, and Chorus drew every stop id again
    /// before the minimum (upstream's rule before main) until the goldens came from upstream's own code; it now
    /// follows upstream, so the same seed draws the same tokens as upstream's `CosyVoice3LM.inference`.
    public func steps(minimumLength: Int) -> [any SamplingStep] {
        let draw: any SamplingStep
        var warpers: [any SamplingStep] = []
        switch self {
        case .repetitionAware(let topP, let topK, let window, let tauR):
            // upstream `nucleus_sampling`: the most likely tokens while the mass of the whole softmax before
            // each is below top-p, at most top-k of them.
            warpers = [TopK(topK), TopP(topP, mass: .everyToken)]
            draw = RepetitionAwareDraw(window: window, tauR: tauR)
        case .topK(let k):
            warpers = [TopK(k)]
            draw = CategoricalDraw()
        case .greedy:
            draw = GreedyDraw()
        }
        let first = LanguageModel.startOfSequence
        return [SuppressStopTokens(first..<(first + 1), until: minimumLength)] + warpers + [draw]
    }

    /// One token drawn from the softmax of `logits`, given the tokens generated so far (no minimum length).
    public func draw(logits: [Float], history: [Int], random: inout SeededRandom) -> Int {
        var sampler = TokenSampler(steps(minimumLength: 0), vocabularySize: logits.count, random: random, history: history)
        var logits = logits
        // Every step list ends in a draw, and no step throws.
        let token = (try? logits.withUnsafeMutableBufferPointer { try sampler.next($0) }) ?? 0
        random = sampler.random
        return token
    }
}
