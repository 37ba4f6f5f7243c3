/// Masks the stop tokens until `minimumLength` tokens have been drawn (Hugging Face's
/// `MinNewTokensLengthLogitsProcessor`): their logits become -inf, so no draw can end the utterance early.
public struct SuppressStopTokens: SamplingStep {
    public let stopTokens: Range<Int>
    public let minimumLength: Int

    public init(_ stopTokens: Range<Int>, until minimumLength: Int) {
        self.stopTokens = stopTokens
        self.minimumLength = minimumLength
    }

    public func apply(to state: inout SamplingState) {
        guard state.generated < minimumLength else { return }
        let logits = state.logits
        for token in stopTokens.clamped(to: 0..<logits.count) { logits[token] = -.infinity }
        if !state.allCandidates {
            var kept = 0
            for position in state.candidates.indices where !stopTokens.contains(state.candidates[position]) {
                state.candidates[kept] = state.candidates[position]
                kept += 1
            }
            state.truncateCandidates(to: kept)
        }
        state.logitsChanged()
    }
}
