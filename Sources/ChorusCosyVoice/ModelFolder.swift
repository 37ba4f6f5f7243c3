import ChorusModels
import ChorusONNX
import Foundation

/// A folder holding the CosyVoice 3 community ONNX export: 12 model files plus the Qwen2 tokenizer files.
///
/// Making one checks that every file is there and names the first missing one; `loadSessions`
/// then checks that each model declares the inputs and outputs the engine feeds and reads.
public struct ModelFolder: Sendable {
    /// The 12 ONNX files of the export, by the stage that runs them.
    public enum File: String, CaseIterable, Sendable {
        case textEmbedding = "text_embedding_fp32.onnx"
        case speechEmbedding = "llm_speech_embedding_fp16.onnx"
        case backboneInitial = "llm_backbone_initial_fp16.onnx"
        case backboneDecode = "llm_backbone_decode_fp16.onnx"
        case llmDecoder = "llm_decoder_fp16.onnx"
        case flowTokenEmbedding = "flow_token_embedding_fp16.onnx"
        case flowPreLookahead = "flow_pre_lookahead_fp16.onnx"
        case flowSpeakerProjection = "flow_speaker_projection_fp16.onnx"
        case flowEstimator = "flow.decoder.estimator.fp16.onnx"
        case f0Predictor = "hift_f0_predictor_fp32.onnx"
        case sourceGenerator = "hift_source_generator_fp32.onnx"
        case hiftDecoder = "hift_decoder_fp32.onnx"
    }

    /// The tokenizer files the text front end reads.
    public static let tokenizerFiles = ["vocab.json", "merges.txt"]

    /// The folder itself.
    public let url: URL

    /// Checks that `url` holds every model and tokenizer file (`CosyVoiceSynthesizer.manifest`); throws
    /// `ModelError.missingFile` naming the first absent one.
    public init(url: URL) throws {
        self.url = url
        try CosyVoiceSynthesizer.manifest.validate(folder: url)
    }

    /// Where `file` lives.
    public func path(of file: File) -> String {
        url.appendingPathComponent(file.rawValue).path
    }

    /// Loads all 12 sessions and checks each one's declared inputs and outputs, and the estimator's
    /// optional attention mask (`FlowMatching.attentionMaskInput`) when it has one.
    public func loadSessions(options: SessionOptions = SessionOptions()) throws -> Sessions {
        var loaded: [File: InferenceSession] = [:]
        for file in File.allCases {
            let session = try InferenceSession(modelPath: path(of: file), options: options)
            try file.signature.check(session, file: file.rawValue)
            if file == .flowEstimator { try FlowMatching.checkAttentionMask(of: session, file: file.rawValue) }
            loaded[file] = session
        }
        return Sessions(loaded)
    }

    /// The loaded sessions, one per file.
    public final class Sessions: Sendable {
        private let sessions: [File: InferenceSession]

        init(_ sessions: [File: InferenceSession]) {
            self.sessions = sessions
        }

        /// The session running `file`.
        public subscript(file: File) -> InferenceSession { sessions[file]! }
    }
}

/// The inputs and outputs one export file must declare: names, element kind and rank.
struct Signature {
    /// Float values may be float32 (the export's `keep_io_types`) or float16; ids are int64, lengths int32.
    enum Kind {
        case float, int64, int32

        func accepts(_ type: TensorElementType?) -> Bool {
            switch self {
            case .float: type == .float32 || type == .float16
            case .int64: type == .int64
            case .int32: type == .int32
            }
        }
    }

    struct Value {
        var name: String
        var kind: Kind
        var rank: Int
    }

    var inputs: [Value]
    var outputs: [Value]

    func check(_ session: InferenceSession, file: String) throws {
        for expected in inputs {
            guard let info = session.input(named: expected.name) else {
                throw CosyVoiceError.unexpectedSignature(
                    file: file, problem: "no input '\(expected.name)' (it has \(session.inputs.map(\.name)))")
            }
            try check(info, against: expected, role: "input", file: file)
        }
        for expected in outputs {
            guard let info = session.output(named: expected.name) else {
                throw CosyVoiceError.unexpectedSignature(
                    file: file, problem: "no output '\(expected.name)' (it has \(session.outputs.map(\.name)))")
            }
            try check(info, against: expected, role: "output", file: file)
        }
    }

    private func check(_ info: ValueInfo, against expected: Value, role: String, file: String) throws {
        guard expected.kind.accepts(info.elementType) else {
            throw CosyVoiceError.unexpectedSignature(
                file: file, problem: "\(role) '\(info.name)' is \(info.elementType?.description ?? "not a tensor"), expected \(expected.kind)")
        }
        guard info.shape.count == expected.rank else {
            throw CosyVoiceError.unexpectedSignature(
                file: file, problem: "\(role) '\(info.name)' has rank \(info.shape.count), expected \(expected.rank)")
        }
    }
}

extension ModelFolder.File {
    /// What the community export declares for this file (reference: cosyvoice3.md, "The 12 ONNX files").
    var signature: Signature {
        func v(_ name: String, _ kind: Signature.Kind, _ rank: Int) -> Signature.Value {
            Signature.Value(name: name, kind: kind, rank: rank)
        }
        switch self {
        case .textEmbedding:
            return Signature(inputs: [v("input_ids", .int64, 2)], outputs: [v("embeddings", .float, 3)])
        case .speechEmbedding:
            return Signature(inputs: [v("token", .int64, 2)], outputs: [v("embedded", .float, 3)])
        case .backboneInitial:
            return Signature(inputs: [v("inputs_embeds", .float, 3), v("attention_mask", .float, 2)],
                             outputs: [v("hidden_states", .float, 3), v("past_key_values", .float, 5)])
        case .backboneDecode:
            return Signature(inputs: [v("inputs_embeds", .float, 3), v("attention_mask", .float, 2),
                                      v("past_key_values", .float, 5)],
                             outputs: [v("hidden_states", .float, 3), v("new_past_key_values", .float, 5)])
        case .llmDecoder:
            return Signature(inputs: [v("hidden_state", .float, 3)], outputs: [v("logits", .float, 2)])
        case .flowTokenEmbedding:
            return Signature(inputs: [v("token", .int64, 2)], outputs: [v("embedded", .float, 3)])
        case .flowPreLookahead:
            return Signature(inputs: [v("token_embedded", .float, 3)], outputs: [v("h", .float, 3)])
        case .flowSpeakerProjection:
            return Signature(inputs: [v("embedding", .float, 2)], outputs: [v("projected", .float, 2)])
        case .flowEstimator:
            return Signature(inputs: [v("x", .float, 3), v("mask", .float, 3), v("mu", .float, 3), v("t", .float, 1),
                                      v("spks", .float, 2), v("cond", .float, 3)],
                             outputs: [v("estimator_out", .float, 3)])
        case .f0Predictor:
            return Signature(inputs: [v("mel", .float, 3)], outputs: [v("f0", .float, 2)])
        case .sourceGenerator:
            return Signature(inputs: [v("f0", .float, 3)], outputs: [v("source", .float, 3)])
        case .hiftDecoder:
            return Signature(inputs: [v("mel", .float, 3), v("source_stft", .float, 3)],
                             outputs: [v("magnitude", .float, 3), v("phase", .float, 3)])
        }
    }
}

extension InferenceSession {
    /// A tensor of `values` in the element type the session declares for `input` (float32 or float16).
    ///
    /// The export keeps float32 at its boundary, but a re-export without `keep_io_types` declares
    /// float16; the engine follows whatever the session says rather than assuming.
    func floatTensor(_ values: [Float], shape: [Int], for input: String) throws -> Tensor {
        try floatTensor(shape: shape, for: input) { _ = $0.update(fromContentsOf: values) }
    }

    /// A tensor of `shape` in the element type the session declares for `input`, whose values `fill`
    /// writes as Float: in place for float32, through one conversion for float16.
    func floatTensor(shape: [Int], for input: String,
                     fill: (UnsafeMutableBufferPointer<Float>) throws -> Void) throws -> Tensor {
        try Tensor.floats(shape: shape, as: floatType(of: input), fill: fill)
    }

    /// `count` ones in the element type the session declares for `input`, to view as masks of any length up to `count`.
    func ones(count: Int, for input: String) throws -> TensorStorage {
        try TensorStorage.filled(with: 1, count: count, as: floatType(of: input))
    }

    /// float16 when the session declares it for `input`, else float32.
    private func floatType(of input: String) -> TensorElementType {
        self.input(named: input)?.elementType == .float16 ? .float16 : .float32
    }

    /// `tensor` as input `name` declares it: the tensor itself when the element types agree (no copy,
    /// as for the KV cache), else its values converted (an embedding returned as float32 feeding a
    /// backbone exported with float16 inputs).
    func fitting(_ tensor: Tensor, to input: String) throws -> Tensor {
        guard let declared = self.input(named: input)?.elementType, declared != tensor.elementType else { return tensor }
        return try floatTensor(tensor.floats(), shape: tensor.shape, for: input)
    }

    /// Runs with `feeds` and returns output `name`, checking that it is there.
    func output(_ name: String, of feeds: [String: Tensor]) throws -> Tensor {
        let results = try run(feeds, outputs: [name])
        guard let tensor = results[name] else {
            throw CosyVoiceError.unexpectedOutput(model: modelPath, name: name, shape: [], expected: "a tensor")
        }
        return tensor
    }
}

extension Tensor {
    /// Calls `body` with the elements as Float: in place for float32, converted for other types.
    func withFloats<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) throws -> R {
        if elementType == .float32 { return try withUnsafeBufferPointer(of: Float.self, body) }
        return try floats().withUnsafeBufferPointer(body)
    }
}
