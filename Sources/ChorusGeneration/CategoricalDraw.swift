/// Draws the token from the softmax of the candidates (multinomial sampling): one uniform from the
/// state's random source, walked through the candidates in their order, or through the block sums of
/// the whole vocabulary when every token is a candidate.
public struct CategoricalDraw: SamplingStep {
    public init() {}

    public func apply(to state: inout SamplingState) {
        state.token = Self.draw(&state)
    }

    static func draw(_ state: inout SamplingState) -> Int {
        if state.allCandidates { return drawAny(&state, excluding: -1) }
        state.softmaxOverCandidates()
        let (total, weights, candidates) = (state.total, state.weights, state.candidates)
        let index = state.random.categorical(count: candidates.count) { Double(weights[candidates[$0]]) / total }
        return candidates[index]
    }

    /// A draw over every token, whatever the candidates, with `excluded`'s probability set to zero (-1 for none).
    static func drawAny(_ state: inout SamplingState, excluding excluded: Int) -> Int {
        state.softmaxOverEveryToken()
        let uniform = state.random.uniform()
        return state.weights.withUnsafeBufferPointer { weights in
            state.blocks.withUnsafeBufferPointer { blocks in
                TokenDistribution.draw(weights: UnsafeBufferPointer(rebasing: weights[0..<state.logits.count]),
                                       blocks: blocks, total: state.total, excluding: excluded, uniform: uniform)
            }
        }
    }
}
