import ChorusDSP
import ChorusGeneration
import ChorusONNX
import ChorusSpeech

/// Stage 2: the speech-token language model (NeuTTS Nano's Llama, Air's Qwen2.5) over its prompt, one
/// token per step with its KV cache, until `<|SPEECH_GENERATION_END|>` or the context is full
/// (upstream `max_length` 2048 counts the prompt).
///
/// The export is the usual Hugging Face one: `input_ids`, `attention_mask`, `position_ids` and
/// `past_key_values.{i}.key/value` in, `logits` (every position's, or the last one's) and
/// `present.{i}.key/value` out. The layer count comes
/// from the input names, the KV heads and head size from their declared shapes.
public struct Backbone: SpeechTokenGenerator, Sendable {
    /// One generation: the prompt ids and the seed of its draws.
    public struct Request: Sendable {
        public var ids: [Int]
        public var seed: UInt64

        public init(ids: [Int], seed: UInt64) {
            self.ids = ids
            self.seed = seed
        }
    }

    /// Tokens the context holds, prompt included (upstream `max_context`).
    public static let context = 2048

    public let session: InferenceSession
    /// Transformer layers (pairs of cache tensors).
    public let layers: Int
    /// Key/value heads and the size of each, as the cache inputs declare them.
    public let keyValueHeads: Int, headSize: Int
    /// The token that ends generation.
    public let stopToken: Int
    public var sampling: NeuTTSSampling
    /// When set, every generation draws exactly this many tokens where the context has room (the stop token
    /// masked until then): a fixed amount of work for benchmarks, whose random-weight models stop anywhere.
    public var exactLength: Int?
    public var tokensPerSecond: Int { 50 }
    let pastNames: [String], presentNames: [String]
    let cachePool = KVCachePool()

    /// The stage over a loaded backbone `session`; throws naming the file when its interface is not the usual one.
    public init(session: InferenceSession, stopToken: Int, sampling: NeuTTSSampling = .upstream, exactLength: Int? = nil) throws {
        self.session = session
        self.stopToken = stopToken
        self.sampling = sampling
        self.exactLength = exactLength
        let path = session.modelPath
        var layers = 0
        while session.input(named: "past_key_values.\(layers).key") != nil { layers += 1 }
        guard layers > 0 else {
            throw NeuTTSError.unexpectedModel(path: path, reason: "has no past_key_values.0.key input (a backbone exported without its KV cache)")
        }
        for name in ["input_ids", "attention_mask", "position_ids"] where session.input(named: name) == nil {
            throw NeuTTSError.unexpectedModel(path: path, reason: "has no \(name) input")
        }
        guard session.output(named: "logits") != nil else {
            throw NeuTTSError.unexpectedModel(path: path, reason: "has no logits output")
        }
        var past: [String] = [], present: [String] = []
        for layer in 0..<layers {
            for kind in ["key", "value"] {
                past.append("past_key_values.\(layer).\(kind)")
                present.append("present.\(layer).\(kind)")
                guard session.input(named: past.last!) != nil, session.output(named: present.last!) != nil else {
                    throw NeuTTSError.unexpectedModel(path: path, reason: "lacks \(past.last!) or \(present.last!)")
                }
            }
        }
        let shape = session.input(named: "past_key_values.0.key")!.shape
        guard shape.count == 4, let heads = shape[1].size, let size = shape[3].size else {
            throw NeuTTSError.unexpectedModel(path: path, reason: "declares past_key_values.0.key as \(shape), not [batch, heads, past, size] with fixed heads and size")
        }
        self.layers = layers
        keyValueHeads = heads
        headSize = size
        pastNames = past
        presentNames = present
    }

    /// Generates speech-stage token ids after `request.ids`, without the stop token; `onToken` sees each as drawn.
    public func generate(_ request: Request, onToken: (Int) throws -> Void) throws -> [Int] {
        let room = Self.context - request.ids.count
        guard room > 0 else { throw NeuTTSError.promptTooLong(tokens: request.ids.count, context: Self.context) }
        let maximum = min(room, exactLength ?? room)
        var steps = sampling.steps(stopToken: stopToken)
        if let exactLength { steps.insert(SuppressStopTokens(stopToken..<(stopToken + 1), until: exactLength), at: 0) }
        var model = try Decoding(stage: self, prompt: request.ids)
        var sampler = TokenSampler(steps, vocabularySize: 0,
                                   random: SeededRandom(seed: request.seed), longest: maximum)
        let cache = try KVCache(pool: cachePool, tensorCount: 2 * layers, longest: Self.context)
        return try DecodeLoop.run(&model, sampler: &sampler, cache: cache, maximumLength: maximum,
                                  isStop: { $0 == stopToken }, onToken: onToken)
    }

    /// The backbone's runs as the shared decode loop drives them: the whole prompt with an empty cache,
    /// then one token per run with the cache the last run returned.
    struct Decoding: AutoregressiveModel {
        let stage: Backbone
        let prompt: [Int]
        private var length = 0
        private let plan: InferenceSession.RunPlan
        private let token: Tensor, position: Tensor
        private let ones: TensorStorage
        private var logits: Tensor?
        private var lastRow: Tensor?

        init(stage: Backbone, prompt: [Int]) throws {
            self.stage = stage
            self.prompt = prompt
            plan = try stage.session.plan(inputs: ["input_ids", "attention_mask", "position_ids"] + stage.pastNames,
                                          outputs: ["logits"] + stage.presentNames)
            token = try Tensor([Int64(0)], shape: [1, 1])
            position = try Tensor([Int64(0)], shape: [1, 1])
            ones = try TensorStorage(elementType: .int64, capacity: Backbone.context)
            try ones.withUnsafeMutableBufferPointer(of: Int64.self) { $0.update(repeating: 1) }
        }

        mutating func prefill(cache: KVCache) throws -> Tensor {
            let session = stage.session
            length = prompt.count
            let type = session.input(named: stage.pastNames[0])?.elementType ?? .float32
            let empty = try TensorStorage(elementType: type, capacity: 0)
            let past = try stage.pastNames.map { _ in try Tensor(over: empty, shape: [1, stage.keyValueHeads, 0, stage.headSize]) }
            let outputs = try session.run(plan, inputs: [
                Tensor(prompt.map(Int64.init), shape: [1, length]),
                Tensor(over: ones, shape: [1, length]),
                Tensor((0..<length).map(Int64.init), shape: [1, length]),
            ] + past, outputs: [nil] + cache.targets(length: length))
            try cache.update(Array(outputs.dropFirst()), model: session.modelPath)
            // The draw reads the last position's row only; a graph may return that row alone
            // (scripts/export-neutts-backbone.py's, whose prompt logits would otherwise take S x V floats).
            let all = outputs[0]
            let vocabulary = all.shape.last ?? 0
            guard all.shape.count == 3, all.shape[1] == length || all.shape[1] == 1, vocabulary > 0 else {
                throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "returned logits of shape \(all.shape) for \(length) tokens")
            }
            let row = try Tensor(shape: [vocabulary], of: Float.self) { target in
                try all.withFloatsOf { source in _ = target.update(fromContentsOf: source[(source.count - vocabulary)...]) }
            }
            lastRow = row
            return row
        }

        mutating func step(_ drawn: Int, cache: KVCache) throws -> Tensor {
            let session = stage.session
            try token.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(drawn) }
            try position.withUnsafeMutableBufferPointer(of: Int64.self) { $0[0] = Int64(length) }
            length += 1
            let outputs = try session.run(plan, inputs: [token, Tensor(over: ones, shape: [1, length]), position] + cache.tensors,
                                          outputs: [logits] + cache.targets(length: length))
            logits = outputs[0]
            try cache.update(Array(outputs.dropFirst()), model: session.modelPath)
            return outputs[0]
        }
    }
}

extension Tensor {
    /// Calls `body` with the elements as Float: in place for float32, converted for float16.
    func withFloatsOf<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) throws -> R {
        if elementType == .float32 { return try withUnsafeBufferPointer(of: Float.self, body) }
        return try floats().withUnsafeBufferPointer(body)
    }
}
