/// Hugging Face's `RepetitionPenaltyLogitsProcessor`: every distinct token in the history has its logit
/// divided by `penalty` when positive and multiplied by it otherwise, once however often it occurs
/// (-inf stays -inf).
public struct RepetitionPenalty: SamplingStep {
    public let penalty: Float

    public init(_ penalty: Float) {
        precondition(penalty > 0, "a repetition penalty must be above 0")
        self.penalty = penalty
    }

    public func apply(to state: inout SamplingState) {
        guard penalty != 1, !state.history.isEmpty else { return }
        let logits = state.logits
        // A bit per token marks those already penalised; the marks are cleared by walking the history again.
        var seen = state.seen
        state.seen = []
        for token in state.history where token >= 0 && token < logits.count {
            let (word, bit) = (token / 64, UInt64(1) << UInt64(token % 64))
            guard seen[word] & bit == 0 else { continue }
            seen[word] |= bit
            let logit = logits[token]
            logits[token] = logit > 0 ? logit / penalty : logit * penalty
        }
        for token in state.history where token >= 0 && token < logits.count { seen[token / 64] = 0 }
        state.seen = seen
        state.logitsChanged()
    }
}
