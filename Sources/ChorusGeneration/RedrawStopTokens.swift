/// Runs `draw` again, up to `maximumTrials` times, while it draws a stop token before `minimumLength`
/// tokens exist: CosyVoice's rule (upstream `sampling_ids` with `ignore_eos`). Unlike `SuppressStopTokens`
/// the stop tokens keep their probability; a rejected draw only uses up random numbers.
public struct RedrawStopTokens: SamplingStep {
    public let stopTokens: Range<Int>
    public let minimumLength: Int
    public let maximumTrials: Int
    public let draw: any SamplingStep

    public init(_ stopTokens: Range<Int>, until minimumLength: Int, maximumTrials: Int, draw: any SamplingStep) {
        self.stopTokens = stopTokens
        self.minimumLength = minimumLength
        self.maximumTrials = maximumTrials
        self.draw = draw
    }

    public func apply(to state: inout SamplingState) throws {
        var trials = 0
        while true {
            try draw.apply(to: &state)
            guard let token = state.token, state.generated < minimumLength, stopTokens.contains(token) else { return }
            trials += 1
            if trials > maximumTrials { throw SamplingError.stuck(step: state.generated, trials: trials) }
        }
    }
}
