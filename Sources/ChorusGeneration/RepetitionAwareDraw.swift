/// CosyVoice's repetition-aware sampling (VALL-E 2; upstream `ras_sampling`): a draw among the candidates
/// (upstream's nucleus: `TopK` then `TopP(mass: .everyToken)` before this step), replaced by a draw over
/// the whole vocabulary when the token already occurs `window x tauR` times or more among the last
/// `window` tokens of the history.
///
/// The replacing draw gives the repeated token probability zero and renormalises the rest, as upstream
/// does since its "fix ras" commit (February 2026: `weighted_scores[top_ids] = -inf` before
/// `random_sampling`); before it the repeated token stayed in the distribution and was often drawn again.
/// The logits are left as they are (the token's weight is only skipped).
public struct RepetitionAwareDraw: SamplingStep {
    public let window: Int
    public let tauR: Double

    public init(window: Int, tauR: Double) {
        self.window = window
        self.tauR = tauR
    }

    public func apply(to state: inout SamplingState) {
        let token = CategoricalDraw.draw(&state)
        var repeats = 0
        for previous in state.history.suffix(window) where previous == token { repeats += 1 }
        if Double(repeats) >= Double(window) * tauR {
            state.token = CategoricalDraw.drawAny(&state, excluding: token)
        } else {
            state.token = token
        }
    }
}
