/// Keeps the `k` most likely candidates, most likely first, ties by index; the rest count as masked.
///
/// At the k-th place a tie can leave tokens as likely as the last one kept. By default they are dropped (exactly
/// `k` stay, as `torch.topk` keeps them); with `keepsTies` they stay too, as Hugging Face's
/// `TopKLogitsWarper` keeps them (it masks only `scores < topk(scores, k)[..., -1]`). Float32 logits rarely
/// tie there; float16 logits often do.
public struct TopK: SamplingStep {
    public let k: Int
    public let keepsTies: Bool

    public init(_ k: Int, keepsTies: Bool = false) {
        precondition(k > 0, "top-k keeps at least one token")
        self.k = k
        self.keepsTies = keepsTies
    }

    public func apply(to state: inout SamplingState) {
        let before = state.analysis == nil ? nil : (state.allCandidates ? Array(state.logits.indices) : state.candidates)
        cut(&state)
        if let before, let analysis = state.analysis { noteCut(before: before, state, analysis) }
    }

    private func cut(_ state: inout SamplingState) {
        if state.allCandidates {
            LikelyTokens.select(in: &state, limit: min(k, state.logits.count))
            state.allCandidates = false
            state.candidatesSorted = true
            if keepsTies { Self.addTies(to: &state) }
        } else {
            state.sortCandidates()
            let all = state.candidates
            state.truncateCandidates(to: k)
            if keepsTies, all.count > k {
                let logits = state.logits
                let last = logits[all[k - 1]]
                let ties = all[k...].prefix { logits[$0] == last }
                state.candidates.append(contentsOf: ties)
            }
        }
    }

    /// The cut's margin: the k-th value against the next lower one among the tokens it chose from (ties with
    /// the k-th are no boundary: `LogitPerturbation` keeps equal values equal, and the aimed one moves them together).
    private func noteCut(before: [Int], _ state: SamplingState, _ analysis: DrawAnalysis) {
        let logits = state.logits
        guard before.count > k, state.candidates.count >= k else { return }
        let kth = logits[state.candidates[k - 1]]
        var lower = -Float.infinity
        for token in before where logits[token] < kth && logits[token] > lower { lower = logits[token] }
        guard lower.isFinite, kth.isFinite else { return }
        let largest = DrawAnalysis.largest(logits, of: before)
        // Held until the draw: a top-p over every token's mass after it may stop short of k (`DrawAnalysis`).
        analysis.holdTopK(DrawAnalysis.gap(Double(kth - lower), largest: largest), largest: largest,
                          up: before.filter { logits[$0] == lower }, down: before.filter { logits[$0] == kth })
    }

    /// Adds, in index order, the tokens not kept whose logit equals the last kept one's. Those kept at that
    /// logit have the lowest indices (ties go by index), so the candidates stay sorted.
    static func addTies(to state: inout SamplingState) {
        guard let lastKept = state.candidates.last else { return }
        let logits = state.logits
        let last = logits[lastKept]
        for token in (lastKept + 1)..<logits.count where logits[token] == last { state.candidates.append(token) }
    }
}
