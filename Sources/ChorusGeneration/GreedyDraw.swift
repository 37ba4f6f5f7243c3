/// Takes the most likely candidate, with no randomness (the lowest index among equal logits).
public struct GreedyDraw: SamplingStep {
    public init() {}

    public func apply(to state: inout SamplingState) {
        if state.allCandidates {
            LikelyTokens.select(in: &state, limit: 1)
            state.allCandidates = false
            state.candidatesSorted = true
        } else {
            state.sortCandidates()
        }
        state.token = state.candidates.first
    }
}
