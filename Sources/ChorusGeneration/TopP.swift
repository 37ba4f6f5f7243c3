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
        var previous = 0.0
        while kept < state.candidates.count, cumulative < p {
            previous = cumulative
            cumulative += state.weight(state.candidates[kept]) / total
            kept += 1
        }
        if let analysis = state.analysis {
            noteCut(state, analysis, kept: kept, below: previous, reached: cumulative, everyToken: mass == .everyToken
                    || state.candidates.count == state.logits.count)
            // Over every token's mass, a cut short of the candidates a top-k left decides the draw instead of it.
            if mass == .everyToken, kept < state.candidates.count { analysis.dropTopK() }
        }
        state.truncateCandidates(to: kept)
    }

    /// The cut's margin: the last cumulative below p (the mass before the last token kept) and the first at or
    /// above it (with the last kept), each against p, in the distribution the mass is measured in.
    private func noteCut(_ state: SamplingState, _ analysis: DrawAnalysis, kept: Int, below: Double, reached: Double,
                         everyToken: Bool) {
        let logits = state.logits
        let ranked = state.candidates
        let distribution = everyToken ? Array(logits.indices) : ranked
        let largest = DrawAnalysis.largest(logits, of: distribution)
        func split(_ count: Int) -> (top: [Int], rest: [Int]) {
            let top = Array(ranked[..<count])
            let inTop = Set(top)
            return (top, distribution.filter { !inTop.contains($0) })
        }
        if kept >= 2 {
            // The mass of the first kept - 1 tokens, below p, rises towards it.
            analysis.note(.topP, DrawAnalysis.cumulative(distance: p - below, share: below, largest: largest),
                          largest: largest) {
                let (top, rest) = split(kept - 1)
                return (top, rest)
            }
        }
        if kept < ranked.count {
            // The mass of the kept tokens, at or above p, falls towards it.
            analysis.note(.topP, DrawAnalysis.cumulative(distance: reached - p, share: reached, largest: largest),
                          largest: largest) {
                let (top, rest) = split(kept)
                return (rest, top)
            }
        }
    }
}
