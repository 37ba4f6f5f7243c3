/// Keeps the `k` most likely candidates (Hugging Face's `TopKLogitsWarper`), most likely first, ties
/// by index; the rest count as masked.
public struct TopK: SamplingStep {
    public let k: Int

    public init(_ k: Int) {
        precondition(k > 0, "top-k keeps at least one token")
        self.k = k
    }

    public func apply(to state: inout SamplingState) {
        if state.allCandidates {
            LikelyTokens.select(in: &state, limit: min(k, state.logits.count))
            state.allCandidates = false
            state.candidatesSorted = true
        } else {
            state.sortCandidates()
            state.truncateCandidates(to: k)
        }
    }
}
