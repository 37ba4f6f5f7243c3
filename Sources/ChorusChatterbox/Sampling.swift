import ChorusGeneration

/// How T3's next speech token is chosen; each case is a list of ChorusGeneration's sampling steps.
public enum ChatterboxSampling: Sendable, Equatable {
    /// upstream's `T3.inference_turbo`: temperature, top-k, top-p (Hugging Face's warpers, in that order),
    /// then the repetition penalty on what is left, then a multinomial draw. The penalty's history is
    /// upstream's: `[6561]` for the first draw, afterwards every drawn token (6561 no longer among them).
    case upstream(temperature: Float, topK: Int, topP: Double, repetitionPenalty: Float)
    /// The ONNX model card's loop: the penalty on the raw logits over 6561 and every drawn token, then the
    /// most likely token. Not upstream's; offered because the export's card and its ports use it.
    case greedy(repetitionPenalty: Float)

    /// upstream's defaults (`ChatterboxTurboTTS.generate`): temperature 0.8, top-k 1000, top-p 0.95, penalty 1.2.
    public static let defaults = ChatterboxSampling.upstream(temperature: 0.8, topK: 1000, topP: 0.95, repetitionPenalty: 1.2)
    /// The model card's greedy loop with its penalty 1.2.
    public static let modelCard = ChatterboxSampling.greedy(repetitionPenalty: 1.2)

    /// The steps that choose one token.
    public var steps: [any SamplingStep] {
        switch self {
        case .upstream(let temperature, let topK, let topP, let penalty):
            var steps: [any SamplingStep] = []
            // upstream adds each warper only when it changes something.
            if temperature > 0, temperature != 1 { steps.append(Temperature(temperature)) }
            if topK > 0 { steps.append(TopK(topK, keepsTies: true)) }
            if topP < 1 { steps.append(TopP(topP)) }
            if penalty != 1 { steps.append(UpstreamPenalty(penalty: penalty)) }
            steps.append(LikelyFirstDraw())
            return steps
        case .greedy(let penalty):
            return [UpstreamPenalty(penalty: penalty, startOfSpeechEveryStep: true), GreedyDraw()]
        }
    }

    /// The history the sampler starts with: none; `UpstreamPenalty` adds start-of-speech itself.
    var history: [Int] { [] }
}

/// Hugging Face's repetition penalty over the history `inference_turbo` passes it: `[6561]` (the prefill's
/// last input) at the first draw, then the drawn tokens. With `startOfSpeechEveryStep` 6561 stays in the
/// history every step, as the model card's loop keeps it at the head of its list.
struct UpstreamPenalty: SamplingStep {
    let penalty: RepetitionPenalty
    let startOfSpeechEveryStep: Bool

    init(penalty: Float, startOfSpeechEveryStep: Bool = false) {
        self.penalty = RepetitionPenalty(penalty)
        self.startOfSpeechEveryStep = startOfSpeechEveryStep
    }

    func apply(to state: inout SamplingState) {
        let logits = state.logits
        let start = EmbeddingIDs.startOfSpeech
        // The drawn tokens never hold 6561 itself unless the model drew it; penalise it once either way.
        if (state.generated == 0 || startOfSpeechEveryStep), start < logits.count, !state.history.contains(start) {
            logits[start] = logits[start] > 0 ? logits[start] / penalty.penalty : logits[start] * penalty.penalty
            state.logitsChanged()
        }
        penalty.apply(to: &state)
    }
}

/// A multinomial draw over the candidates ordered most likely first (ties by id) after the penalty changed
/// their logits, so a pinned uniform picks what torch.multinomial's pinned stand-in picks in the goldens.
///
/// When every processed logit is -inf there is nothing to draw. upstream's loop checks this before each later
/// draw (`if torch.all(processed_logits == -float("inf")): break`, `T3.inference_turbo`) and ends without a
/// token; Chorus answers 6562, which the loop's stop rule ends on without keeping it. The first draw has no
/// such check upstream (torch.multinomial refuses the NaN probabilities), so there it is an error.
struct LikelyFirstDraw: SamplingStep {
    func apply(to state: inout SamplingState) throws {
        if Self.everyLogitMasked(state) {
            guard state.generated > 0 else { throw ChatterboxError.noFiniteLogit }
            state.token = EmbeddingIDs.stopOfSpeech
            return
        }
        if !state.allCandidates {
            let logits = state.logits
            let ordered = state.candidates.sorted { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }
            state.restrict(to: ordered)
        }
        CategoricalDraw().apply(to: &state)
    }
}

extension LikelyFirstDraw {
    /// Whether every candidate's logit is -inf (tokens outside the candidates count as -inf).
    static func everyLogitMasked(_ state: SamplingState) -> Bool {
        let logits = state.logits
        if state.allCandidates { return logits.allSatisfy { $0 == -.infinity } }
        return state.candidates.allSatisfy { logits[$0] == -.infinity }
    }
}
