/// Keeps candidates whose probability is at least `p` times the most likely one's (Hugging Face's
/// `MinPLogitsWarper`, llama.cpp's min-p), in their current order.
public struct MinP: SamplingStep {
    public let p: Float

    public init(_ p: Float) {
        precondition(p >= 0 && p <= 1, "min-p is a probability in [0, 1]")
        self.p = p
    }

    public func apply(to state: inout SamplingState) {
        // Weights are exp(logit - top), so the most likely candidate's is 1 and the rule is weight >= p.
        state.softmaxOverCandidates()
        let sorted = state.allCandidates || state.candidatesSorted
        if state.allCandidates {
            state.restrict(to: state.logits.indices)
        }
        var kept = 0
        for position in state.candidates.indices {
            let token = state.candidates[position]
            if state.weights[token] >= p {
                state.candidates[kept] = token
                kept += 1
            }
        }
        state.truncateCandidates(to: kept)
        state.candidatesSorted = sorted && kept > 0 && state.candidatesSorted
    }
}
