/// Divides every logit by `value` (Hugging Face's `TemperatureLogitsWarper`): below 1 sharpens the
/// distribution, above 1 flattens it. A temperature of 1 changes nothing and is skipped.
public struct Temperature: SamplingStep {
    public let value: Float

    /// A temperature above 0.
    public init(_ value: Float) {
        precondition(value > 0, "a temperature must be above 0 (use GreedyDraw for the most likely token)")
        self.value = value
    }

    public func apply(to state: inout SamplingState) {
        guard value != 1 else { return }
        let logits = state.logits
        for index in logits.indices { logits[index] /= value }
        state.logitsChanged()
    }
}
