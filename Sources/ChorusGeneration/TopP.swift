/// Nucleus filtering: keeps the most likely candidates while the probability mass before each is below
/// `p` (so the first always stays), as Hugging Face's `TopPLogitsWarper` and CosyVoice's `nucleus_sampling` do.
public struct TopP: SamplingStep {
    /// Which distribution the mass is measured in.
    public enum Mass: Sendable {
        /// The softmax of the remaining candidates (Hugging Face: after top-k, renormalised).
        case candidates
        /// The softmax of every token, whatever earlier steps kept (CosyVoice's nucleus, which caps the
        /// count at top-k but measures the mass over the whole vocabulary).
        case everyToken
    }

    public let p: Double
    public let mass: Mass

    public init(_ p: Double, mass: Mass = .candidates) {
        precondition(p > 0 && p <= 1, "top-p is a probability in (0, 1]")
        self.p = p
        self.mass = mass
    }

    public func apply(to state: inout SamplingState) {
        state.sortCandidates()
        let total: Double
        if mass == .everyToken || state.candidates.count == state.logits.count {
            state.softmaxOverEveryToken()
            total = state.total
        } else {
            state.softmaxOverCandidates()
            var sum = 0.0
            for token in state.candidates { sum += state.weight(token) }
            total = sum
        }
        var kept = 0
        var cumulative = 0.0
        while kept < state.candidates.count, cumulative < p {
            cumulative += state.weight(state.candidates[kept]) / total
            kept += 1
        }
        state.truncateCandidates(to: kept)
    }
}
