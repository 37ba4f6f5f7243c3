import ChorusDSP

/// Chooses tokens by applying a list of `SamplingStep`s in order to each step's logits, ending in a draw.
///
/// Made once per utterance: its `SamplingState` holds every buffer the steps use (softmax weights,
/// candidates, selection scratch, the history), so sampling a token allocates nothing.
public struct TokenSampler {
    /// The steps, applied in order; the last that sets a token decides it.
    public let steps: [any SamplingStep]
    /// The buffers and history the steps share.
    public private(set) var state: SamplingState

    /// A sampler for logits of `vocabularySize` running `steps`, drawing from `random`; `history` seeds
    /// the tokens the penalties see, and `longest` reserves room for that many drawn tokens.
    public init(_ steps: [any SamplingStep], vocabularySize: Int, random: SeededRandom,
                history: [Int] = [], longest: Int = 0) {
        // A test's perturbation of the model's logits goes first, before any step reads them.
        self.steps = (LogitPerturbation.current.map { [$0] } ?? []) + steps
        state = SamplingState(vocabularySize: vocabularySize, history: history, longest: longest, random: random)
    }

    /// The next token from `logits` (changed in place by the steps); it joins the history.
    public mutating func next(_ logits: UnsafeMutableBufferPointer<Float>) throws -> Int {
        state.begin(logits)
        for step in steps { try step.apply(to: &state) }
        guard let token = state.token else { throw SamplingError.noDraw }
        state.accept(token)
        return token
    }

    /// The random source as the draws have left it.
    public var random: SeededRandom { state.random }
}
