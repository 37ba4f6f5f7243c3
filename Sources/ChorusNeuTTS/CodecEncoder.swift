// The NeuCodec encoder: a reference clip to the codes a NeuTTS voice holds.
//
// Upstream (neutts 1.4.1 `NeuTTS.encode_reference`, neucodec 0.0.6 `NeuCodec.encode_code`): the clip is loaded
// at 16 kHz mono (librosa), padded with 320 - (n % 320) zeros (always 1 to 320), and goes two ways:
//   semantic: transformers' SeamlessM4TFeatureExtractor (numpy: Kaldi fbank x 2^15, per-bin normalisation,
//             frames stacked in pairs to 160) -> Wav2Vec2-BERT (w2v-bert-2.0), hidden state 16 ->
//             SemanticEncoder;
//   acoustic: CodecEncoder (SnakeBeta, anti-aliased, strides 2, 2, 4, 4, 5 = 320 samples a frame);
// both cut to the shorter length (the semantic side has one frame fewer), concatenated, fc_prior (2048 ->
// 2048), and the ResidualFSQ's indices are the codes [1, 1, F], F = n / 320 rounded down.
//
// What is in the graph and what is not (scripts/export-neucodec-encoder.py makes the graph):
// - In the ONNX: everything from the features and the padded clip to the codes: upstream's encode_code
//   itself, exported with its padding and its feature extractor's call answered by the two inputs, so the
//   graph holds its modules (CodecEnc, semantic_model, SemanticEncoder_module, fc_prior, the generator's
//   ResidualFSQ) in its order, with its cut to the shorter length. Wav2Vec2-BERT keeps only its first 16 layers: hidden state 16 is the input of layer 16, so the
//   later 8 layers (a third of its ~600 M weights) never change the codes; the generator checks that the
//   cut graph gives upstream's codes.
// - In Swift: the feature extractor, because upstream's is numpy code outside any torch module, so no
//   exporter can put it in a graph (ChorusDSP's `SeamlessM4TFeatures`, checked against upstream's extractor
//   on the golden clip); reading the clip at any rate and channel count, mixing to mono and resampling to
//   16 kHz (librosa's role upstream: ChorusAudio's resampler, so the codes of a clip at another rate come
//   close to upstream's but are exact only for a 16 kHz clip); and upstream's padding, since the features
//   are those of the padded clip.
// Graph interface: `audio` float32 [1, 1, N] (N a multiple of 320) and `features` float32 [1, N / 320 - 1,
// 160] in; `codes` int32 (as the FSQ makes them; int64 taken too) [1, 1, F] out.
//
// Bounded memory: clips longer than 30 s are refused by their WAV header, before a sample is decoded.
// Upstream takes any length, but its reference shares the backbone's 2,048-token context with the text and
// the speech (30 s is 1,500 codes, leaving 548), and Wav2Vec2-BERT's relative-key attention makes a
// frames x frames x 64 position tensor in every layer (w2v-bert-2.0 at 30 s: 1,500^2 x 64 floats, 576 MB,
// beside 16 x 1,500^2 attention scores, 144 MB), which grows with the square of the length.
// Neuphonic's distilled codec (DistillNeuCodec, DistilHuBERT) is another graph and is not covered.

import ChorusAudio
import ChorusDSP
import ChorusONNX
import Foundation

/// Stage 0, for voices: a reference clip to NeuCodec codes through the encoder ONNX, as upstream's
/// `NeuTTS.encode_reference` makes them (see the notes at the top of this file for the split between the
/// graph and Swift).
public struct CodecEncoder: Sendable {
    /// The rate the codec reads.
    public static let sampleRate = 16_000
    /// Samples per code at 16 kHz (50 codes a second).
    public static let samplesPerCode = 320
    /// The longest clip taken, in seconds.
    public static let maximumDuration = 30.0
    /// The shortest clip that gives a code: 320 samples at 16 kHz.
    public static let minimumDuration = Double(samplesPerCode) / Double(sampleRate)

    public let session: InferenceSession
    public let features = SeamlessM4TFeatures()
    private let codesAreInt64: Bool

    /// The stage over a loaded encoder `session`; throws naming the file when its inputs or output are not
    /// `audio` float [1, 1, N], `features` float [1, F, 160] and `codes` int32/int64 [1, 1, F].
    public init(session: InferenceSession) throws {
        let path = session.modelPath
        func expect(_ info: ValueInfo?, _ name: String, _ types: [TensorElementType], lastDimension: Int? = nil) throws {
            let kind = types.map(\.description).joined(separator: " or ")
            guard let info else {
                throw NeuTTSError.unexpectedModel(path: path, reason: "has no \(name) (a NeuCodec encoder takes audio and features and gives codes)")
            }
            guard let type = info.elementType, types.contains(type), info.shape.count == 3 else {
                throw NeuTTSError.unexpectedModel(path: path, reason: "declares \(info), not \(name) as \(kind) of rank 3")
            }
            if let lastDimension, !info.shape[2].accepts(lastDimension) {
                throw NeuTTSError.unexpectedModel(path: path, reason: "declares \(info), not \(lastDimension) values per frame")
            }
        }
        try expect(session.input(named: "audio"), "input audio", [.float32])
        try expect(session.input(named: "features"), "input features", [.float32], lastDimension: SeamlessM4TFeatures().featureCount)
        try expect(session.output(named: "codes"), "output codes", [.int64, .int32])
        guard session.inputs.count == 2 else {
            throw NeuTTSError.unexpectedModel(path: path, reason: "has \(session.inputs.count) inputs, not audio and features")
        }
        self.session = session
        codesAreInt64 = session.output(named: "codes")?.elementType == .int64
    }

    /// upstream `NeuCodec._prepare_audio`: `samples` followed by 320 - (count % 320) zeros.
    public static func padded(_ samples: [Float]) -> [Float] {
        samples + [Float](repeating: 0, count: samplesPerCode - samples.count % samplesPerCode)
    }

    /// The codes of `samples`, mono at 16 kHz: one per 320 samples, rounded down.
    public func encode(_ samples: [Float]) throws -> [Int] {
        let seconds = Double(samples.count) / Double(Self.sampleRate)
        try Self.check(seconds: seconds, source: "The clip")
        let audio = Self.padded(samples)
        let rows = features(audio)  // audio.count / 320 - 1 rows: an even number of fbank frames
        let outputs = try session.run([
            "audio": Tensor(audio, shape: [1, 1, audio.count]),
            "features": Tensor(rows.values, shape: [1, rows.rows, rows.columns]),
        ], outputs: ["codes"])
        guard let codes = outputs["codes"] else {
            throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "returned no codes")
        }
        let values = codesAreInt64 ? try codes.array(of: Int64.self).map(Int.init) : try codes.array(of: Int32.self).map(Int.init)
        guard codes.shape.count == 3, codes.shape[0] == 1, codes.shape[1] == 1 else {
            throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "returned codes of shape \(codes.shape), not [1, 1, F]")
        }
        if let bad = values.first(where: { !(0..<PromptBuilder.codebookSize).contains($0) }) { throw NeuTTSError.codeOutOfRange(bad) }
        return values
    }

    /// The codes of `samples` (mono) at `sampleRate`, resampled to 16 kHz first.
    public func encode(_ samples: [Float], sampleRate: Int) throws -> [Int] {
        try Self.check(seconds: Double(samples.count) / Double(max(sampleRate, 1)), source: "The clip")
        let clip = sampleRate == Self.sampleRate ? samples : try Resampler.resample(samples, from: sampleRate, to: Self.sampleRate)
        return try encode(clip)
    }

    /// The WAV file at `url` (any rate, any channels) mixed to mono, refused by its header when longer than
    /// `maximumDuration` or too short for a code, so a long file is never decoded.
    public static func clip(contentsOf url: URL) throws -> (samples: [Float], sampleRate: Int) {
        let header = try WAVFile.header(contentsOf: url)
        try check(seconds: header.duration, source: url.path)
        return try WAVFile.readMono(contentsOf: url, limits: AudioInputLimits(maximumSeconds: maximumDuration))
    }

    static func check(seconds: Double, source: String) throws {
        guard seconds <= maximumDuration else {
            throw NeuTTSError.invalidVoice(String(format: "%@ is %.1f s; a NeuTTS reference must be at most %.0f s (3-15 s is best), so trim it.",
                                                  source, seconds, maximumDuration))
        }
        guard seconds >= minimumDuration else {
            throw NeuTTSError.invalidVoice(String(format: "%@ is %.3f s, too short for one NeuCodec code (20 ms); give a 3-15 s clip.",
                                                  source, seconds))
        }
    }
}
