import ChorusDSP
import ChorusGeneration
import ChorusONNX
import ChorusSpeech

/// Stage 2: T3's speech-token loop (`T3.inference_turbo`) on the export's `embed_tokens` and
/// `language_model` graphs.
///
/// Prefill: the voice's conditioning, then the text rows and start-of-speech, at positions 0..L-1. Each later
/// step embeds the last drawn token and runs one position with the KV cache the last run returned (written
/// into the cache's own buffers, no copies). The first draw is not checked for stop, as upstream's is not;
/// after it, 6562 ends the loop; at most 1 + `maximumNewTokens` draws; a trailing 6562 is removed. What it
/// returns is upstream's `inference_turbo` output: the id filter comes before decoding.
public struct LanguageModel: SpeechTokenGenerator, Sendable {
    /// One generation: the voice's conditioning, the `embed_tokens` ids of the text, the draws' seed.
    public struct Prompt: Sendable {
        public var voice: VoiceConditioning
        public var ids: [Int]
        public var seed: UInt64

        public init(voice: VoiceConditioning, ids: [Int], seed: UInt64) {
            self.voice = voice
            self.ids = ids
            self.seed = seed
        }
    }

    /// upstream's `max_gen_len`: draws after the first.
    public static let maximumNewTokens = 1000

    public let embed: InferenceSession
    public let language: InferenceSession
    public let layers: Int, heads: Int, headSize: Int
    public var sampling: ChatterboxSampling
    /// Draws after the first (upstream 1000).
    public var maximumNewTokens: Int
    public var tokensPerSecond: Int { 25 }
    let pastNames: [String], presentNames: [String]
    let cachePool = KVCachePool()

    /// The stage over loaded `embed_tokens` and `language_model` sessions; throws naming the file when an
    /// input, output, element type or rank is not the export's.
    public init(embed: InferenceSession, language: InferenceSession, sampling: ChatterboxSampling = .defaults,
                maximumNewTokens: Int = LanguageModel.maximumNewTokens) throws {
        self.embed = embed
        self.language = language
        self.sampling = sampling
        self.maximumNewTokens = maximumNewTokens
        try embed.checkExport(input: "input_ids", types: [.int64], rank: 2)
        try embed.checkExport(output: "inputs_embeds", types: [.float32, .float16], rank: 3)
        try language.checkExport(input: "inputs_embeds", types: [.float32, .float16], rank: 3)
        try language.checkExport(input: "attention_mask", types: [.int64], rank: 2)
        try language.checkExport(input: "position_ids", types: [.int64], rank: 2)
        try language.checkExport(output: "logits", types: [.float32, .float16], rank: 3)
        var layers = 0
        while language.input(named: "past_key_values.\(layers).key") != nil { layers += 1 }
        guard layers > 0 else {
            throw ChatterboxError.unexpectedModel(path: language.modelPath, reason: "has no past_key_values.0.key input")
        }
        var past: [String] = [], present: [String] = []
        for layer in 0..<layers {
            for kind in ["key", "value"] {
                past.append("past_key_values.\(layer).\(kind)")
                present.append("present.\(layer).\(kind)")
                try language.checkExport(input: past.last!, types: [.float32, .float16], rank: 4)
                try language.checkExport(output: present.last!, types: [.float32, .float16], rank: 4)
            }
        }
        let shape = language.input(named: "past_key_values.0.key")!.shape
        guard let heads = shape[1].size, let size = shape[3].size else {
            throw ChatterboxError.unexpectedModel(
                path: language.modelPath, reason: "declares past_key_values.0.key as \(shape), without fixed heads and head size")
        }
        self.layers = layers
        self.heads = heads
        headSize = size
        pastNames = past
        presentNames = present
    }

    /// upstream's tokens for `prompt` (trailing stop removed, nothing filtered); `onToken` sees each draw.
    public func generate(_ prompt: Prompt, onToken: (Int) throws -> Void) throws -> [Int] {
        try generate(prompt, steps: sampling.steps, history: sampling.history, onToken: onToken)
    }

    /// `generate` with other sampling steps, for measurements that must not stop early (the stop token masked).
    public func generate(_ prompt: Prompt, steps: [any SamplingStep], history: [Int] = [],
                  onToken: (Int) throws -> Void) throws -> [Int] {
        guard prompt.voice.width == width(), !prompt.ids.isEmpty else {
            throw ChatterboxError.invalidVoice(
                path: "conditioning", reason: "is \(prompt.voice.width) wide where the language model takes \(width())")
        }
        let draws = 1 + maximumNewTokens
        let longest = prompt.voice.conditioningLength + prompt.ids.count + draws
        var model = try Decoding(stage: self, prompt: prompt, longest: longest)
        var sampler = TokenSampler(steps, vocabularySize: EmbeddingIDs.speechVocabulary,
                                   random: SeededRandom(seed: prompt.seed), history: history, longest: draws)
        let cache = try KVCache(pool: cachePool, tensorCount: 2 * layers, longest: longest)
        var tokens = try DecodeLoop.run(&model, sampler: &sampler, cache: cache, maximumLength: draws,
                                        isStop: Self.stopRule(), onToken: onToken)
        if tokens.last == EmbeddingIDs.stopOfSpeech { tokens.removeLast() }
        return tokens
    }

    /// upstream's stop rule for one generation: 6562 ends it, except at the first draw, which upstream does not
    /// check (that 6562 is kept, and the id filter drops it before decoding).
    static func stopRule() -> (Int) -> Bool {
        var drawn = 0
        return { token in
            drawn += 1
            return drawn > 1 && token == EmbeddingIDs.stopOfSpeech
        }
    }

    /// The embedding width the language model takes.
    func width() -> Int { language.input(named: "inputs_embeds")?.shape.last?.size ?? 0 }

    /// T3's runs as the shared decode loop drives them.
    struct Decoding: AutoregressiveModel {
        let stage: LanguageModel
        let prompt: Prompt
        private var length = 0
        private let embedPlan: InferenceSession.RunPlan
        private let plan: InferenceSession.RunPlan
        private let token: Tensor, position: Tensor
        private let ones: TensorStorage
        private var logits: Tensor?

        init(stage: LanguageModel, prompt: Prompt, longest: Int) throws {
            self.stage = stage
            self.prompt = prompt
            embedPlan = try stage.embed.plan(inputs: ["input_ids"], outputs: ["inputs_embeds"])
            plan = try stage.language.plan(inputs: ["inputs_embeds", "attention_mask", "position_ids"] + stage.pastNames,
                                           outputs: ["logits"] + stage.presentNames)
            token = try Tensor([Int64(0)], shape: [1, 1])
            position = try Tensor([Int64(0)], shape: [1, 1])
            ones = try TensorStorage(elementType: .int64, capacity: longest)
            try ones.withUnsafeMutableBufferPointer(of: Int64.self) { $0.update(repeating: 1) }
        }

        mutating func prefill(cache: KVCache) throws -> Tensor {
            let language = stage.language
            let voice = prompt.voice
            let text = try stage.embed.run(embedPlan, inputs: [Tensor(prompt.ids.map(Int64.init), shape: [1, prompt.ids.count])],
                                           outputs: [nil])[0]
            let width = voice.width
            guard text.shape == [1, prompt.ids.count, width] else {
                throw ChatterboxError.unexpectedModel(
                    path: stage.embed.modelPath, reason: "returned inputs_embeds of shape \(text.shape) for \(prompt.ids.count) ids of width \(width)")
            }
            length = voice.conditioningLength + prompt.ids.count
            let type = language.input(named: "inputs_embeds")?.elementType ?? .float32
            let embeds = try Tensor.floats(voice.audioFeatures + text.floats(), shape: [1, length, width], as: type)
            let pastType = language.input(named: stage.pastNames[0])?.elementType ?? .float32
            let empty = try TensorStorage(elementType: pastType, capacity: 0)
            let past = try stage.pastNames.map { _ in try Tensor(over: empty, shape: [1, stage.heads, 0, stage.headSize]) }
            let outputs = try language.run(plan, inputs: [
                embeds, Tensor(over: ones, shape: [1, length]), Tensor((0..<length).map(Int64.init), shape: [1, length]),
            ] + past, outputs: [nil] + cache.targets(length: length))
            try cache.update(Array(outputs.dropFirst()), model: language.modelPath)
            let all = outputs[0]
            let vocabulary = all.shape.last ?? 0
            guard all.shape.count == 3, all.shape[1] == length, vocabulary == EmbeddingIDs.speechVocabulary else {
                throw ChatterboxError.unexpectedModel(
                    path: language.modelPath, reason: "returned logits of shape \(all.shape) for \(length) positions, not [1, \(length), 6563]")
            }
            // The draw reads the last position's row only.
            return try Tensor(shape: [vocabulary], of: Float.self) { target in
                let floats = try all.floats()
                _ = target.update(fromContentsOf: floats[(floats.count - vocabulary)...])
            }
        }

        mutating func step(_ drawn: Int, cache: KVCache) throws -> Tensor {
            let language = stage.language
            try token.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(drawn) }
            try position.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(length) }
            length += 1
            let embeds = try stage.embed.run(embedPlan, inputs: [token], outputs: [nil])[0]
            let type = language.input(named: "inputs_embeds")?.elementType ?? .float32
            let input = embeds.elementType == type
                ? embeds : try Tensor.floats(embeds.floats(), shape: embeds.shape, as: type)
            let outputs = try language.run(plan, inputs: [input, Tensor(over: ones, shape: [1, length]), position] + cache.tensors,
                                           outputs: [logits] + cache.targets(length: length))
            logits = outputs[0]
            try cache.update(Array(outputs.dropFirst()), model: language.modelPath)
            return outputs[0]
        }
    }
}
