import Foundation
import ChorusONNX

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
    /// KV-cache buffers kept from one utterance to the next.
    let cacheBuffers = CacheBufferPool()

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
    ///
    /// A decode step allocates nothing on the Swift side: the first step's outputs (logits, hidden state,
    /// embedding) become the tensors every later step writes into, the KV cache alternates between two
    /// buffers sized for the longest utterance the limits allow, and the attention mask is a view of a row
    /// of ones one element longer each step.
    @discardableResult
    public func generate(
        promptText: [Int], text: [Int], promptSpeech: [Int], sampling: Sampling = .upstream,
        random: inout SeededRandom, onToken: (Int) throws -> Void = { _ in }
    ) throws -> [Int] {
        let limits = Self.lengthLimits(textCount: text.count)
        let input = try inputEmbeddings(promptText: promptText, text: text, promptSpeech: promptSpeech)
        var length = input.shape[1]
        let width = input.shape[2]
        let longest = length + limits.upperBound

        // After the first utterance the cache's layout is known, and even the prefill writes into a kept buffer.
        var caches = try cacheBuffers.layout.map { try CacheBuffers(layout: $0, longest: longest, pool: cacheBuffers) }
        defer { caches.map { cacheBuffers.put($0.buffers.0, $0.buffers.1) } }
        let prefill = try backboneInitial.run(
            backboneInitial.plan(inputs: ["inputs_embeds", "attention_mask"], outputs: ["hidden_states", "past_key_values"]),
            inputs: [input, backboneInitial.floatTensor(shape: [1, length], for: "attention_mask") { $0.update(repeating: 1) }],
            outputs: [nil, caches?.target(length: length)])
        var cache = prefill[1]
        var hidden = try decoder.floatTensor(shape: [1, 1, width], for: "hidden_state") { row in
            try prefill[0].withFloats { states in
                guard states.count == length * width else {
                    throw CosyVoiceError.unexpectedOutput(model: backboneInitial.modelPath, name: "hidden_states",
                                                          shape: prefill[0].shape, expected: "[1, \(length), \(width)]")
                }
                _ = row.update(fromContentsOf: states[(states.count - width)...])
            }
        }

        let decoderPlan = try decoder.plan(inputs: ["hidden_state"], outputs: ["logits"])
        let embeddingPlan = try speechEmbedding.plan(inputs: ["token"], outputs: ["embedded"])
        let decodePlan = try backboneDecode.plan(inputs: ["inputs_embeds", "attention_mask", "past_key_values"],
                                                 outputs: ["hidden_states", "new_past_key_values"])
        let token = try Tensor([Int64(0)], shape: [1, 1])
        let ones = try backboneDecode.ones(count: longest, for: "attention_mask")
        var logits: Tensor?, embedded: Tensor?, decodedHidden: Tensor?
        var sampler = TokenSampler(vocabularySize: 0)

        var tokens: [Int] = []
        for step in 0..<limits.upperBound {
            logits = try decoder.run(decoderPlan, inputs: [decoder.fitting(hidden, to: "hidden_state")], outputs: [logits])[0]
            let drawn = try logits!.withFloats { logits in
                try draw(logits, sampler: &sampler, history: tokens, sampling: sampling, random: &random,
                         allowStop: step >= limits.lowerBound, step: step)
            }
            if Self.stopTokens.contains(drawn) { break }
            tokens.append(drawn)
            try onToken(drawn)
            if step == limits.upperBound - 1 { break }

            try token.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(drawn) }
            embedded = try speechEmbedding.run(embeddingPlan, inputs: [token], outputs: [embedded])[0]
            length += 1
            let next = try backboneDecode.run(decodePlan, inputs: [
                backboneDecode.fitting(embedded!, to: "inputs_embeds"),
                Tensor(over: ones, shape: [1, length]),
                // Fed back as the runtime holds it: its element type and shape, never re-read.
                cache,
            ], outputs: [decodedHidden, caches?.target(length: length)])
            decodedHidden = next[0]
            hidden = next[0]
            if caches == nil {
                let layout = try CacheLayout(before: cache, after: next[1], model: backboneDecode.modelPath)
                cacheBuffers.layout = layout
                caches = try CacheBuffers(layout: layout, longest: longest, pool: cacheBuffers)
            }
            cache = next[1]
        }
        return tokens
    }

    /// upstream `sampling_ids`: before the minimum length a drawn stop id is rejected and drawn again.
    private func draw(
        _ logits: UnsafeBufferPointer<Float>, sampler: inout TokenSampler, history: [Int], sampling: Sampling,
        random: inout SeededRandom, allowStop: Bool, step: Int
    ) throws -> Int {
        var redraws = 0
        while true {
            let token = sampler.draw(sampling, logits: logits, history: history, random: &random)
            if allowStop || token < Self.speechTokenCount { return token }
            redraws += 1
            if redraws > Self.maximumRedraws {
                throw CosyVoiceError.samplingStuck(step: step, trials: redraws)
            }
        }
    }

    /// `[sos, text(promptText + text), task, speech(promptSpeech)]` as the backbone's [1, length, width] input.
    private func inputEmbeddings(promptText: [Int], text: [Int], promptSpeech: [Int]) throws -> Tensor {
        let ids = (promptText + text).map(Int64.init)
        let textRows = try textEmbedding.output("embeddings", of: ["input_ids": Tensor(ids, shape: [1, ids.count])])
        // sos and task come from the speech embedding table (CosyVoice3LM uses speech_embedding for both).
        let special = [Int64(Self.startOfSequence), Int64(Self.task)] + promptSpeech.map(Int64.init)
        let speechRows = try speechEmbedding.output("embedded", of: ["token": Tensor(special, shape: [1, special.count])])
        guard let width = textRows.shape.last, speechRows.shape.last == width else {
            throw CosyVoiceError.unexpectedOutput(model: speechEmbedding.modelPath, name: "embedded",
                                                  shape: speechRows.shape, expected: "the text embedding's width")
        }
        let length = ids.count + special.count
        return try backboneInitial.floatTensor(shape: [1, length, width], for: "inputs_embeds") { rows in
            try textRows.withFloats { text in
                try speechRows.withFloats { speech in
                    let textEnd = width + text.count
                    _ = rows[0..<width].update(fromContentsOf: speech[0..<width])
                    _ = rows[width..<textEnd].update(fromContentsOf: text)
                    _ = rows[textEnd...].update(fromContentsOf: speech[width...])
                }
            }
        }
    }
}

/// Cache buffers between utterances: their pages stay mapped, so the next utterance neither faults them
/// in again inside its runs nor unmaps them when it ends (a few MB on the test models, resident as the
/// longest utterance so far needed). Concurrent utterances each take their own.
final class CacheBufferPool: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [TensorStorage] = []
    private var learned: CacheLayout?

    /// The cache layout the first utterance showed, for later ones to write even the prefill in place.
    var layout: CacheLayout? {
        get { lock.withLock { learned } }
        set { lock.withLock { learned = newValue } }
    }

    /// A buffer of at least `capacity` elements of `type`, kept or new.
    func take(_ type: TensorElementType, capacity: Int) throws -> TensorStorage {
        let reused: TensorStorage? = lock.withLock {
            guard let index = kept.firstIndex(where: { $0.elementType == type && $0.capacity >= capacity }) else { return nil }
            return kept.remove(at: index)
        }
        return try reused ?? TensorStorage(elementType: type, capacity: capacity)
    }

    /// Keeps `buffers` for the next utterance (the two largest are kept).
    func put(_ buffers: TensorStorage...) {
        lock.withLock {
            kept += buffers
            kept.sort { $0.capacity > $1.capacity }
            if kept.count > 2 { kept.removeLast(kept.count - 2) }
        }
    }
}

/// The KV cache's element type and shape, and which axis grows by one each step: read from the first
/// decode step (the one axis whose size went up by one), so the export's layout is never assumed.
struct CacheLayout {
    var elementType: TensorElementType
    var shape: [Int]
    var axis: Int

    init(before: Tensor, after: Tensor, model: String) throws {
        let grown = zip(before.shape, after.shape).enumerated().filter { $0.element.1 != $0.element.0 }
        guard before.shape.count == after.shape.count, grown.count == 1, let axis = grown.first?.offset,
              after.shape[axis] == before.shape[axis] + 1
        else {
            throw CosyVoiceError.unexpectedOutput(model: model, name: "new_past_key_values", shape: after.shape,
                                                  expected: "past_key_values \(before.shape) one step longer on one axis")
        }
        elementType = after.elementType
        shape = after.shape
        self.axis = axis
    }

    /// Elements per step of the growing axis.
    var elementsPerStep: Int { shape.enumerated().reduce(1) { $0 * ($1.offset == axis ? 1 : $1.element) } }
}

/// Two buffers the KV cache alternates between, each sized for the longest utterance the limits allow:
/// each run reads the cache from one and the runtime writes the one-step-longer cache into the other.
private struct CacheBuffers {
    let buffers: (TensorStorage, TensorStorage)
    let layout: CacheLayout
    private var writesSecond = false

    init(layout: CacheLayout, longest: Int, pool: CacheBufferPool) throws {
        self.layout = layout
        let capacity = layout.elementsPerStep * longest
        buffers = (try pool.take(layout.elementType, capacity: capacity), try pool.take(layout.elementType, capacity: capacity))
    }

    /// The tensor the next run writes a cache of `length` steps into: the buffer the last run did not write.
    mutating func target(length: Int) throws -> Tensor {
        var shape = layout.shape
        shape[layout.axis] = length
        defer { writesSecond.toggle() }
        return try Tensor(over: writesSecond ? buffers.1 : buffers.0, shape: shape)
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
