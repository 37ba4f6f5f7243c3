import Foundation
import ChorusONNX
import ChorusDSP
import ChorusGeneration
import ChorusSpeech

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

    let textEmbedding: InferenceSession
    let speechEmbedding: InferenceSession
    let backboneInitial: InferenceSession
    let backboneDecode: InferenceSession
    let decoder: InferenceSession
    /// KV-cache buffers kept from one utterance to the next.
    let cachePool = KVCachePool()

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
    /// buffers sized for the longest utterance the limits allow (ChorusGeneration's `KVCache`), the
    /// attention mask is a view of a row of ones one element longer each step, and the sampling steps
    /// work in buffers made once per utterance.
    ///
    /// `length`, when given, is the exact number of tokens drawn: every stop id is masked until then and
    /// generation ends there (see `CosyVoiceSynthesizer.Configuration.speechTokens`); nil keeps upstream's
    /// limits from the text's length.
    @discardableResult
    public func generate(
        promptText: [Int], text: [Int], promptSpeech: [Int], sampling: Sampling = .upstream, length: Int? = nil,
        random: inout SeededRandom, onToken: (Int) throws -> Void = { _ in }
    ) throws -> [Int] {
        let limits = length.map { $0...$0 } ?? Self.lengthLimits(textCount: text.count)
        let input = try inputEmbeddings(promptText: promptText, text: text, promptSpeech: promptSpeech)
        var model = try Decoding(stage: self, input: input, longest: input.shape[1] + limits.upperBound)
        var steps = sampling.steps(minimumLength: limits.lowerBound)
        if let length { steps.insert(SuppressStopTokens(Self.stopTokens, until: length), at: 0) }
        var sampler = TokenSampler(steps, vocabularySize: 0, random: random, longest: limits.upperBound)
        let cache = try KVCache(pool: cachePool, tensorCount: 1, longest: model.longest)
        defer { random = sampler.random }
        return try DecodeLoop.run(&model, sampler: &sampler, cache: cache, maximumLength: limits.upperBound,
                                  isStop: Self.stopTokens.contains, onToken: onToken)
    }

    /// upstream `CosyVoice3LM.inference`'s model calls, as the shared decode loop drives them: the backbone
    /// over the whole input once, then the speech embedding of each drawn token through the backbone with
    /// the cache; the decoder turns each last hidden state into logits.
    struct Decoding: AutoregressiveModel {
        let stage: LanguageModel
        let input: Tensor
        let longest: Int
        private var length: Int
        private let width: Int
        private let decoderPlan: InferenceSession.RunPlan
        private let embeddingPlan: InferenceSession.RunPlan
        private let decodePlan: InferenceSession.RunPlan
        private let token: Tensor
        private let ones: TensorStorage
        private var hidden: Tensor?
        private var logits: Tensor?, embedded: Tensor?, decodedHidden: Tensor?

        init(stage: LanguageModel, input: Tensor, longest: Int) throws {
            self.stage = stage
            self.input = input
            self.longest = longest
            length = input.shape[1]
            width = input.shape[2]
            decoderPlan = try stage.decoder.plan(inputs: ["hidden_state"], outputs: ["logits"])
            embeddingPlan = try stage.speechEmbedding.plan(inputs: ["token"], outputs: ["embedded"])
            decodePlan = try stage.backboneDecode.plan(inputs: ["inputs_embeds", "attention_mask", "past_key_values"],
                                                       outputs: ["hidden_states", "new_past_key_values"])
            token = try Tensor([Int64(0)], shape: [1, 1])
            ones = try stage.backboneDecode.ones(count: longest, for: "attention_mask")
        }

        mutating func prefill(cache: KVCache) throws -> Tensor {
            let backboneInitial = stage.backboneInitial
            // After the first utterance the cache's layout is known, and even the prefill writes into a kept buffer.
            let prefill = try backboneInitial.run(
                backboneInitial.plan(inputs: ["inputs_embeds", "attention_mask"], outputs: ["hidden_states", "past_key_values"]),
                inputs: [input, backboneInitial.floatTensor(shape: [1, length], for: "attention_mask") { $0.update(repeating: 1) }],
                outputs: [nil, cache.targets(length: length)[0]])
            try cache.update([prefill[1]], model: backboneInitial.modelPath)
            let (length, width) = (length, width)
            hidden = try stage.decoder.floatTensor(shape: [1, 1, width], for: "hidden_state") { row in
                try prefill[0].withFloats { states in
                    guard states.count == length * width else {
                        throw CosyVoiceError.unexpectedOutput(model: backboneInitial.modelPath, name: "hidden_states",
                                                              shape: prefill[0].shape, expected: "[1, \(length), \(width)]")
                    }
                    _ = row.update(fromContentsOf: states[(states.count - width)...])
                }
            }
            return try nextLogits()
        }

        mutating func step(_ drawn: Int, cache: KVCache) throws -> Tensor {
            let backboneDecode = stage.backboneDecode
            try token.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(drawn) }
            embedded = try stage.speechEmbedding.run(embeddingPlan, inputs: [token], outputs: [embedded])[0]
            length += 1
            let next = try backboneDecode.run(decodePlan, inputs: [
                backboneDecode.fitting(embedded!, to: "inputs_embeds"),
                Tensor(over: ones, shape: [1, length]),
                // Fed back as the runtime holds it: its element type and shape, never re-read.
                cache.tensors[0],
            ], outputs: [decodedHidden, cache.targets(length: length)[0]])
            decodedHidden = next[0]
            hidden = next[0]
            try cache.update([next[1]], model: backboneDecode.modelPath)
            return try nextLogits()
        }

        /// The decoder over the last hidden state, written into the first step's logits tensor from then on.
        private mutating func nextLogits() throws -> Tensor {
            let decoder = stage.decoder
            guard let hidden else { throw CosyVoiceError.unexpectedOutput(model: decoder.modelPath, name: "hidden_state", shape: [], expected: "a prefill first") }
            logits = try decoder.run(decoderPlan, inputs: [decoder.fitting(hidden, to: "hidden_state")], outputs: [logits])[0]
            return logits!
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

extension LanguageModel: SpeechTokenGenerator {
    /// One generation: the ids of the prompt text (a transcript or an instruction after the default
    /// instruction, or none), of the text to speak, the voice's prompt speech tokens (none for instruct2 and
    /// cross-lingual), and how and from which seed the tokens are drawn.
    public struct Request: Sendable, Equatable {
        public var promptText: [Int]
        public var text: [Int]
        public var promptSpeech: [Int]
        public var sampling: Sampling
        public var seed: UInt64
        /// Exactly this many tokens when set (see `generate`'s `length`).
        public var length: Int?

        public init(promptText: [Int], text: [Int], promptSpeech: [Int], sampling: Sampling = .upstream, seed: UInt64 = 0,
                    length: Int? = nil) {
            self.promptText = promptText
            self.text = text
            self.promptSpeech = promptSpeech
            self.sampling = sampling
            self.seed = seed
            self.length = length
        }
    }

    /// CosyVoice 3's speech tokens are 25 Hz.
    public var tokensPerSecond: Int { 25 }

    /// The tokens of `request`, drawn from a source seeded with its seed (so equal requests draw equally).
    public func generate(_ request: Request, onToken: (Int) throws -> Void) throws -> [Int] {
        var random = SeededRandom(seed: request.seed)
        return try generate(promptText: request.promptText, text: request.text, promptSpeech: request.promptSpeech,
                            sampling: request.sampling, length: request.length, random: &random, onToken: onToken)
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
