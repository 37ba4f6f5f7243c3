import Foundation
import OnnxRuntime

/// Stage 1: text tokens and the voice's prompt speech tokens in, speech tokens (25 per second) out.
///
/// Follows upstream `CosyVoice3LM.inference`: the input is `[sos, text(prompt text + text), task,
/// prompt speech]`, one prefill, then one decode step per token with the KV cache fed straight back
/// as the runtime returned it (its element type and shape are the runtime's, never re-read).
public struct LanguageModel: Sendable {
    /// Size of the speech-token codebook; ids at or above it are special.
    public static let speechTokenCount = 6561
    /// Start of sequence, looked up in the speech embedding table.
    public static let startOfSequence = 6561
    /// End of speech.
    public static let endOfSpeech = 6562
    /// The task marker between the text and the prompt speech.
    public static let task = 6563
    /// Every id the decoder can emit past the codebook ends generation (upstream `stop_token_ids`).
    public static let stopTokens = 6561..<6761
    /// Speech tokens per text token, at least and at most (upstream min/max_token_text_ratio).
    public static let lengthRatios = (minimum: 2, maximum: 20)
    /// Redraws allowed when a stop id is drawn before the minimum length (upstream `max_trials`).
    public static let maximumRedraws = 100

    let textEmbedding: InferenceSession
    let speechEmbedding: InferenceSession
    let backboneInitial: InferenceSession
    let backboneDecode: InferenceSession
    let decoder: InferenceSession

    /// The stage over the five LLM sessions of `sessions`.
    public init(sessions: ModelFolder.Sessions) {
        textEmbedding = sessions[.textEmbedding]
        speechEmbedding = sessions[.speechEmbedding]
        backboneInitial = sessions[.backboneInitial]
        backboneDecode = sessions[.backboneDecode]
        decoder = sessions[.llmDecoder]
    }

    /// The minimum and maximum number of speech tokens for `textCount` target text tokens.
    public static func lengthLimits(textCount: Int) -> ClosedRange<Int> {
        (textCount * lengthRatios.minimum)...(textCount * lengthRatios.maximum)
    }

    /// Generates speech tokens for `text`, spoken in the voice whose transcript tokens are
    /// `promptText` and whose speech tokens are `promptSpeech`; calls `onToken` with each as it is drawn.
    ///
    /// Returns every drawn token, before the silence filter (which upstream applies after the LLM).
    @discardableResult
    public func generate(
        promptText: [Int], text: [Int], promptSpeech: [Int], sampling: Sampling = .upstream,
        random: inout SeededRandom, onToken: (Int) throws -> Void = { _ in }
    ) throws -> [Int] {
        let limits = Self.lengthLimits(textCount: text.count)
        let input = try inputEmbeddings(promptText: promptText, text: text, promptSpeech: promptSpeech)
        let width = input.width
        var length = input.values.count / width

        let prefill = try backboneInitial.run([
            "inputs_embeds": backboneInitial.floatTensor(input.values, shape: [1, length, width], for: "inputs_embeds"),
            "attention_mask": backboneInitial.floatTensor(ones(length), shape: [1, length], for: "attention_mask"),
        ])
        guard let states = prefill["hidden_states"], var cache = prefill["past_key_values"] else {
            throw CosyVoiceError.unexpectedOutput(model: backboneInitial.modelPath, name: "hidden_states",
                                                  shape: [], expected: "hidden_states and past_key_values")
        }
        let lastRow = Array(try states.floats().suffix(width))
        var hidden = try decoder.floatTensor(lastRow, shape: [1, 1, width], for: "hidden_state")

        var tokens: [Int] = []
        for step in 0..<limits.upperBound {
            let logits = try decoder.output("logits", of: ["hidden_state": decoder.fitting(hidden, to: "hidden_state")]).floats()
            let probabilities = Self.softmax(logits)
            let token = try draw(probabilities, history: tokens, sampling: sampling, random: &random,
                                 allowStop: step >= limits.lowerBound, step: step)
            if Self.stopTokens.contains(token) { break }
            tokens.append(token)
            try onToken(token)
            if step == limits.upperBound - 1 { break }

            length += 1
            let embedded = try speechEmbedding.output("embedded", of: ["token": Tensor([Int64(token)], shape: [1, 1])])
            let next = try backboneDecode.run([
                "inputs_embeds": backboneDecode.fitting(embedded, to: "inputs_embeds"),
                "attention_mask": backboneDecode.floatTensor(ones(length), shape: [1, length], for: "attention_mask"),
                // Fed back exactly as returned: the runtime's element type and shape, never re-read.
                "past_key_values": cache,
            ])
            guard let nextHidden = next["hidden_states"], let nextCache = next["new_past_key_values"] else {
                throw CosyVoiceError.unexpectedOutput(model: backboneDecode.modelPath, name: "hidden_states",
                                                      shape: [], expected: "hidden_states and new_past_key_values")
            }
            hidden = nextHidden
            cache = nextCache
        }
        return tokens
    }

    /// upstream `sampling_ids`: before the minimum length a drawn stop id is rejected and drawn again.
    private func draw(
        _ probabilities: [Double], history: [Int], sampling: Sampling, random: inout SeededRandom,
        allowStop: Bool, step: Int
    ) throws -> Int {
        var redraws = 0
        while true {
            let token = sampling.draw(probabilities, history: history, random: &random)
            if allowStop || token < Self.speechTokenCount { return token }
            redraws += 1
            if redraws > Self.maximumRedraws {
                throw CosyVoiceError.samplingStuck(step: step, trials: redraws)
            }
        }
    }

    /// `[sos, text(promptText + text), task, speech(promptSpeech)]` as one [length, width] row-major buffer.
    private func inputEmbeddings(promptText: [Int], text: [Int], promptSpeech: [Int]) throws -> (values: [Float], width: Int) {
        let ids = (promptText + text).map(Int64.init)
        let textRows = try textEmbedding.output("embeddings", of: ["input_ids": Tensor(ids, shape: [1, ids.count])])
        // sos and task come from the speech embedding table (CosyVoice3LM uses speech_embedding for both).
        let special = [Int64(Self.startOfSequence), Int64(Self.task)] + promptSpeech.map(Int64.init)
        let speechRows = try speechEmbedding.output("embedded", of: ["token": Tensor(special, shape: [1, special.count])])
        guard let width = textRows.shape.last, speechRows.shape.last == width else {
            throw CosyVoiceError.unexpectedOutput(model: speechEmbedding.modelPath, name: "embedded",
                                                  shape: speechRows.shape, expected: "the text embedding's width")
        }
        let textValues = try textRows.floats()
        let speechValues = try speechRows.floats()
        var values: [Float] = []
        values.reserveCapacity(textValues.count + speechValues.count)
        values += speechValues[0..<width]
        values += textValues
        values += speechValues[width..<(2 * width)]
        values += speechValues[(2 * width)...]
        return (values, width)
    }

    private func ones(_ count: Int) -> [Float] { [Float](repeating: 1, count: count) }

    /// Softmax in float64, summed in index order (upstream softmaxes `log_softmax(logits)`: the same distribution).
    static func softmax(_ logits: [Float]) -> [Double] {
        let top = Double(logits.max() ?? 0)
        var values = logits.map { exp(Double($0) - top) }
        var total = 0.0
        for value in values { total += value }
        for index in values.indices { values[index] /= total }
        return values
    }
}

/// How the next speech token is chosen from the decoder's distribution.
public enum Sampling: Sendable, Equatable {
    /// Repetition-aware sampling (VALL-E 2, upstream `ras_sampling`): a nucleus draw (top-p, at most
    /// top-k), redrawn from the whole distribution when the token already occurs `window x tauR`
    /// times or more among the last `window` tokens.
    case repetitionAware(topP: Double, topK: Int, window: Int, tauR: Double)
    /// A draw among the `k` most likely tokens.
    case topK(Int)
    /// The most likely token, no randomness.
    case greedy

    /// Upstream's configuration: top-p 0.8, top-k 25, window 10, tau_r 0.1.
    public static let upstream = Sampling.repetitionAware(topP: 0.8, topK: 25, window: 10, tauR: 0.1)

    /// One token drawn from `probabilities`, given the tokens generated so far.
    public func draw(_ probabilities: [Double], history: [Int], random: inout SeededRandom) -> Int {
        switch self {
        case .repetitionAware(let topP, let topK, let window, let tauR):
            let token = Self.nucleus(probabilities, topP: topP, topK: topK, random: &random)
            let repeats = history.suffix(window).reduce(0) { $0 + ($1 == token ? 1 : 0) }
            if Double(repeats) >= Double(window) * tauR {
                return random.categorical(probabilities)
            }
            return token
        case .topK(let k):
            let kept = Self.descending(probabilities, limit: k)
            return kept[random.categorical(kept.map { probabilities[$0] })]
        case .greedy:
            return Self.descending(probabilities, limit: 1).first ?? 0
        }
    }

    /// upstream `nucleus_sampling`: in descending order (ties by index), keep tokens while the
    /// cumulative probability is below `topP` and fewer than `topK` are kept, then draw among them.
    static func nucleus(_ probabilities: [Double], topP: Double, topK: Int, random: inout SeededRandom) -> Int {
        var kept: [Int] = []
        var cumulative = 0.0
        for index in descending(probabilities, limit: topK) {
            guard cumulative < topP, kept.count < topK else { break }
            cumulative += probabilities[index]
            kept.append(index)
        }
        return kept[random.categorical(kept.map { probabilities[$0] })]
    }

    /// The `limit` most probable indices by descending probability; equal probabilities keep index
    /// order, as upstream's stable sort does. A partial selection: sorting all 6761 every step is waste.
    static func descending(_ probabilities: [Double], limit: Int) -> [Int] {
        guard limit > 0 else { return [] }
        var best: [Int] = []
        best.reserveCapacity(limit + 1)
        for index in probabilities.indices {
            let p = probabilities[index]
            if best.count == limit, let last = best.last, probabilities[last] >= p { continue }
            // Insert after every kept index with probability >= p: earlier indices win ties.
            var position = best.count
            while position > 0, probabilities[best[position - 1]] < p { position -= 1 }
            best.insert(index, at: position)
            if best.count > limit { best.removeLast() }
        }
        return best
    }
}

/// Upstream `CosyVoice3Model.llm_job`'s filter: after `maximumRun` silent tokens in a row, further
/// silent tokens are dropped until a non-silent one arrives (the LLM itself still saw them).
public struct SilenceFilter: Sendable {
    /// The FSQ codes CosyVoice 3 uses for silence and breath.
    public static let silentTokens: Set<Int> = [1, 2, 28, 29, 55, 248, 494, 2241, 2242, 2322, 2323]
    /// Silent tokens kept in a row.
    public static let maximumRun = 5

    private var run = 0

    public init() {}

    /// Whether `token` is kept.
    public mutating func admit(_ token: Int) -> Bool {
        guard Self.silentTokens.contains(token) else {
            run = 0
            return true
        }
        run += 1
        return run <= Self.maximumRun
    }

    /// `tokens` with over-long silences cut.
    public static func filter(_ tokens: [Int]) -> [Int] {
        var filter = SilenceFilter()
        return tokens.filter { filter.admit($0) }
    }
}
