/// CosyVoice's repetition-aware sampling (VALL-E 2; upstream `ras_sampling`): a draw among the candidates
/// (upstream's nucleus: `TopK` then `TopP(mass: .everyToken)` before this step), replaced by a draw over
/// the whole vocabulary when the token already occurs `window x tauR` times or more among the last
/// `window` tokens of the history.
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
            state.token = CategoricalDraw.drawAny(&state, excluding: -1)
        } else {
            state.token = token
        }
    }
}
