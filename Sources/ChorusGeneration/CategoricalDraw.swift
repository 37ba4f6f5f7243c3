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
        var peek = state.random
        let index = state.random.categorical(count: candidates.count) { Double(weights[candidates[$0]]) / total }
        // categorical sums the weights, then takes one uniform: the one a copy of the source gives first.
        state.analysis?.noteDraw(.draw, logits: state.logits, order: candidates, chosen: index, uniform: peek.uniform()) {
            Double(weights[$0])
        }
        return candidates[index]
    }

    /// A draw over every token, whatever the candidates, with `excluded`'s probability set to zero (-1 for none).
    static func drawAny(_ state: inout SamplingState, excluding excluded: Int) -> Int {
        state.softmaxOverEveryToken()
        let uniform = state.random.uniform()
        let token = state.weights.withUnsafeBufferPointer { weights in
            state.blocks.withUnsafeBufferPointer { blocks in
                TokenDistribution.draw(weights: UnsafeBufferPointer(rebasing: weights[0..<state.logits.count]),
                                       blocks: blocks, total: state.total, excluding: excluded, uniform: uniform)
            }
        }
        if let analysis = state.analysis {
            let order = state.logits.indices.filter { $0 != excluded }
            let weights = state.weights
            analysis.noteDraw(excluded >= 0 ? .redraw : .draw, logits: state.logits, order: order,
                              chosen: order.firstIndex(of: token) ?? 0, uniform: uniform) { Double(weights[$0]) }
        }
        return token
    }
}
