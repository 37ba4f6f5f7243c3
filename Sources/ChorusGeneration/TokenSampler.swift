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
    /// A test's perturbation of the logits, applied before the steps (nil: none).
    let perturbation: LogitPerturbation?
    /// Where a test records each draw's margins (nil: not measured).
    let log: DrawMarginLog?
    /// The logits as given, kept while a measuring pass runs the steps over them first.
    private var original: [Float] = []

    /// A sampler for logits of `vocabularySize` running `steps`, drawing from `random`; `history` seeds
    /// the tokens the penalties see, and `longest` reserves room for that many drawn tokens.
    public init(_ steps: [any SamplingStep], vocabularySize: Int, random: SeededRandom,
                history: [Int] = [], longest: Int = 0) {
        self.steps = steps
        perturbation = LogitPerturbation.current
        log = DrawMarginLog.active
        state = SamplingState(vocabularySize: vocabularySize, history: history, longest: longest, random: random)
    }

    /// The next token from `logits` (changed in place by the steps); it joins the history.
    public mutating func next(_ logits: UnsafeMutableBufferPointer<Float>) throws -> Int {
        var analysis: DrawAnalysis?
        if log != nil || perturbation?.aimed == true {
            analysis = try measure(logits)
            if let log, let analysis { log.append(analysis.margin) }
        }
        // A test's perturbation of the model's logits goes first, before any step reads them.
        if let perturbation {
            if perturbation.aimed { analysis?.perturb(logits, size: perturbation.size) } else { perturbation.perturb(logits) }
        }
        state.begin(logits)
        for step in steps { try step.apply(to: &state) }
        guard let token = state.token else { throw SamplingError.noDraw }
        state.accept(token)
        return token
    }

    /// The steps run once over `logits` as given, noting their draw's margins, then the logits and the state
    /// put back as they were, so the real pass draws from the same place.
    private mutating func measure(_ logits: UnsafeMutableBufferPointer<Float>) throws -> DrawAnalysis {
        original.removeAll(keepingCapacity: true)
        original.append(contentsOf: logits)
        let saved = state
        let analysis = DrawAnalysis(raw: original)
        state.begin(logits)
        state.analysis = analysis
        defer {
            state = saved
            _ = original.withUnsafeBufferPointer { logits.update(fromContentsOf: $0) }
        }
        for step in steps { try step.apply(to: &state) }
        analysis.commitTopK()
        return analysis
    }

    /// The random source as the draws have left it.
    public var random: SeededRandom { state.random }
}
