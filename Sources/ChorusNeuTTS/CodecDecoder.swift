import ChorusONNX
import ChorusSpeech

/// Stage 3: NeuCodec codes to 24 kHz audio through the decoder ONNX (upstream `NeuCodecOnnxDecoder`):
/// `codes` [1, 1, F] in (int32 as neutts passes them, or int64 when the export declares it), output 0
/// out, (F - 1) x 480 samples (the export's iSTFT trims 240 samples more at each end than the PyTorch codec).
public struct CodecDecoder: Sendable {
    /// Output sample rate.
    public static let sampleRate = 24_000
    /// Samples per code (50 codes a second).
    public static let samplesPerCode = 480

    public let session: InferenceSession
    private let input: String
    private let output: String
    private let takesInt64: Bool

    /// The stage over a loaded decoder `session`; throws naming the file when it has no codes input.
    public init(session: InferenceSession) throws {
        guard let input = session.input(named: "codes") ?? session.inputs.first, session.inputs.count == 1,
              let output = session.outputs.first
        else {
            throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "is not a NeuCodec decoder (one codes input [1, 1, F], audio as output 0)")
        }
        guard input.elementType == .int32 || input.elementType == .int64 else {
            throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "takes \(input.elementType?.description ?? "no tensor") codes, not int32 or int64")
        }
        self.session = session
        self.input = input.name
        self.output = output.name
        takesInt64 = input.elementType == .int64
    }

    /// The audio of `codes` (empty for no codes).
    public func decode(_ codes: [Int]) throws -> [Float] {
        guard !codes.isEmpty else { return [] }
        let tensor = takesInt64
            ? try Tensor(codes.map(Int64.init), shape: [1, 1, codes.count])
            : try Tensor(codes.map { Int32(truncatingIfNeeded: $0) }, shape: [1, 1, codes.count])
        guard let audio = try session.run([input: tensor], outputs: [output])[output] else {
            throw NeuTTSError.unexpectedModel(path: session.modelPath, reason: "returned no \(output)")
        }
        return try audio.floats()
    }
}

/// upstream's streaming decode (`NeuTTS._infer_stream_ggml`) as a `SpeechTokenDecoder` for
/// ChorusSpeech's `TokenStreaming`: every 25 codes (with 5 ahead) the codec decodes the chunk with up to
/// 50 codes before it (the reference's codes count as already decoded), the samples of 27 frames from the
/// chunk's start are kept, and chunks are joined by triangular overlap-add with a stride of 25 frames.
public struct StreamingCodecDecoder: SpeechTokenDecoder {
    /// Codes per chunk, read ahead, read back, and frames of overlap on each side (upstream's constants).
    public static let framesPerChunk = 25, lookforward = 5, lookback = 50, overlap = 1

    /// The schedule upstream's chunks follow: a fixed hop of 25 codes, 5 ahead.
    public static var schedule: TokenHopSchedule {
        TokenHopSchedule(firstHop: framesPerChunk, maximumHop: framesPerChunk, growth: 1, lookahead: lookforward)
    }

    public let codec: CodecDecoder
    public let referenceCodes: [Int]
    public var sampleRate: Int { CodecDecoder.sampleRate }
    public var samplesPerToken: Int { CodecDecoder.samplesPerCode }
    public var lookahead: Int { Self.lookforward }

    // The overlap-add of upstream's `_linear_overlap_add`, kept from where the last call stopped: the
    // weighted sums and weights of samples not yet returned (the overlap the next chunk adds to).
    private var sums: [Float] = []
    private var weights: [Float] = []

    public init(codec: CodecDecoder, referenceCodes: [Int]) {
        self.codec = codec
        self.referenceCodes = referenceCodes
    }

    public mutating func decode(_ tokens: [Int], decoded: Int, final: Bool) throws -> [Float] {
        let hop = CodecDecoder.samplesPerCode
        let all = referenceCodes + tokens
        let done = referenceCodes.count + decoded
        let frame: [Float]
        if final {
            let remaining = all.count - done
            guard remaining > 0 else { return [] }
            let start = max(all.count - (Self.lookback + Self.overlap + remaining), 0)
            let audio = try codec.decode(Array(all[start...]))
            let first = (all.count - start - remaining - Self.overlap) * hop
            frame = first < audio.count ? Array(audio[first...]) : []
        } else {
            let start = max(done - Self.lookback - Self.overlap, 0)
            let end = min(done + Self.framesPerChunk + Self.lookforward + Self.overlap, all.count)
            let audio = try codec.decode(Array(all[start..<end]))
            let first = (done - start) * hop
            let last = first + (Self.framesPerChunk + 2 * Self.overlap) * hop
            frame = first < audio.count ? Array(audio[first..<min(last, audio.count)]) : []
        }
        add(frame)
        let ready = final ? sums.count : min(Self.framesPerChunk * hop, sums.count)
        var out = [Float](repeating: 0, count: ready)
        for index in 0..<ready { out[index] = sums[index] / weights[index] }
        sums.removeFirst(ready)
        weights.removeFirst(ready)
        return out
    }

    /// Adds one chunk, starting where the returned audio ends, with upstream's triangular weights:
    /// t = linspace(0, 1, n + 2)[1:-1] in float32, weight = 0.5 - |t - 0.5|.
    private mutating func add(_ frame: [Float]) {
        if frame.count > sums.count {
            sums += [Float](repeating: 0, count: frame.count - sums.count)
            weights += [Float](repeating: 0, count: frame.count - weights.count)
        }
        let step = 1.0 / Double(frame.count + 1)
        for index in frame.indices {
            let t = Float(Double(index + 1) * step)
            let weight = Float(0.5) - abs(t - Float(0.5))
            sums[index] += weight * frame[index]
            weights[index] += weight
        }
    }
}
