import Foundation
import ChorusDSP
import ChorusONNX

/// A mel spectrogram, channel-major: `values[bin * frames + frame]`, 80 bins, 50 frames per second.
public struct MelSpectrogram: Sendable, Equatable {
    /// Mel bins per frame.
    public static let bins = 80
    public var frames: Int
    public var values: [Float]

    public init(frames: Int, values: [Float]) {
        precondition(values.count == frames * Self.bins, "a mel spectrogram holds 80 x frames values")
        self.frames = frames
        self.values = values
    }

    /// Frames `range` of every bin.
    public func frames(_ range: Range<Int>) -> MelSpectrogram {
        var out: [Float] = []
        out.reserveCapacity(range.count * Self.bins)
        for bin in 0..<Self.bins {
            out += values[(bin * frames + range.lowerBound)..<(bin * frames + range.upperBound)]
        }
        return MelSpectrogram(frames: range.count, values: out)
    }

    /// This mel followed by `other` in time.
    public func appending(_ other: MelSpectrogram) -> MelSpectrogram {
        var joined: [Float] = []
        joined.reserveCapacity(values.count + other.values.count)
        for bin in 0..<Self.bins {
            joined += values[(bin * frames)..<((bin + 1) * frames)]
            joined += other.values[(bin * other.frames)..<((bin + 1) * other.frames)]
        }
        return MelSpectrogram(frames: frames + other.frames, values: joined)
    }

    /// Stretched or squeezed in time to `count` frames by linear interpolation, as upstream's
    /// `F.interpolate(mode="linear")` (align_corners false) does for speed changes.
    public func resampled(to count: Int) -> MelSpectrogram {
        guard count != frames, count > 0, frames > 0 else { return self }
        var out: [Float] = []
        out.reserveCapacity(count * Self.bins)
        for bin in 0..<Self.bins {
            out += LinearResize.resize(Array(values[(bin * frames)..<((bin + 1) * frames)]), to: count)
        }
        return MelSpectrogram(frames: count, values: out)
    }
}

/// The flow's initial noise. Like upstream `CausalConditionalCFM.rand_noise` (drawn once, sliced to
/// each utterance), frame n of every utterance starts from the same values, so a streamed prefix and
/// the whole utterance agree. The values are drawn frame by frame (80 bins each) from
/// `SeededRandom(seed:)`, only as far as an utterance has needed, and kept: a noise value is drawn once
/// per engine, not once per flow run.
public struct FlowNoise: Sendable {
    /// The seed of the draws.
    public let seed: UInt64
    private let drawn: Drawn

    public init(seed: UInt64 = 0) {
        self.seed = seed
        drawn = Drawn(seed: seed)
    }

    /// The first `frames` frames, channel-major [80, frames].
    public func prefix(_ frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: MelSpectrogram.bins * frames)
        out.withUnsafeMutableBufferPointer { write(frames, into: $0) }
        return out
    }

    /// Writes the first `frames` frames channel-major into `target` (80 x frames values).
    func write(_ frames: Int, into target: UnsafeMutableBufferPointer<Float>) {
        drawn.read(frames) { values in
            for frame in 0..<frames {
                for bin in 0..<MelSpectrogram.bins { target[bin * frames + frame] = values[frame * MelSpectrogram.bins + bin] }
            }
        }
    }

    /// The frames drawn so far, frame-major, and the generator to draw more from.
    private final class Drawn: @unchecked Sendable {
        private let lock = NSLock()
        private var random: SeededRandom
        private var values: [Float] = []

        init(seed: UInt64) {
            random = SeededRandom(seed: seed)
        }

        func read(_ frames: Int, _ body: (UnsafeBufferPointer<Float>) -> Void) {
            lock.withLock {
                let needed = frames * MelSpectrogram.bins
                // Whole frames of 80 (an even count) keep Box-Muller's pairs where a single draw puts them.
                if values.count < needed { values += random.gaussians(needed - values.count) }
                values.withUnsafeBufferPointer { body($0) }
            }
        }
    }
}

/// Stage 2: speech tokens to mel, conditioned on the voice (upstream `CausalMaskedDiffWithDiT.inference`
/// and `CausalConditionalCFM`).
///
/// The prompt's tokens go first; the prompt mel conditions their frames; a 10-step Euler solve on a
/// cosine time schedule with classifier-free guidance turns noise into mel; the prompt frames are dropped.
///
/// An estimator that takes upstream's attention mask (`attn_mask`, see `takesAttentionMask`) runs streamed
/// chunks under upstream's chunk mask; the community export's has no such input and always attends fully.
public struct FlowMatching: Sendable {
    /// Mel frames per speech token.
    public static let tokenMelRatio = 2
    /// Euler steps.
    public static let steps = 10
    /// Classifier-free guidance weight (upstream `inference_cfg_rate`).
    public static let guidanceRate = 0.7

    /// Mel frames per attention chunk when streaming: upstream cosyvoice3.yaml sets the DiT's
    /// `static_chunk_size` to chunk_size 25 tokens x token_mel_ratio 2, and `num_decoding_left_chunks` to -1
    /// (every chunk to the left).
    public static let chunkFrames = 50

    /// The estimator input that takes the attention mask: the name of the tensor upstream `DiT.forward`
    /// builds from its `streaming` flag and hands to every block's attention.
    public static let attentionMaskInput = "attn_mask"

    let tokenEmbedding: InferenceSession
    let preLookahead: InferenceSession
    let speakerProjection: InferenceSession
    let estimator: InferenceSession

    /// Whether the estimator takes upstream's attention mask (`attn_mask`, bool [2, 1, frames, frames]).
    ///
    /// When it does, streamed chunks before the last run under upstream's chunk mask, as its PyTorch path does;
    /// when it does not (the community export, and upstream's own `export_onnx.py`, which traces with
    /// `streaming` false), every run attends fully, as upstream's TensorRT path does.
    public let takesAttentionMask: Bool

    /// The stage over the four flow sessions of `sessions`.
    public init(sessions: ModelFolder.Sessions) {
        tokenEmbedding = sessions[.flowTokenEmbedding]
        preLookahead = sessions[.flowPreLookahead]
        speakerProjection = sessions[.flowSpeakerProjection]
        estimator = sessions[.flowEstimator]
        takesAttentionMask = estimator.input(named: Self.attentionMaskInput) != nil
    }

    /// Checks that an estimator's attention-mask input, when it has one, is what `mel` feeds: bool with
    /// batch 2, one head row and two frame axes, as upstream's `attn_mask` (B, 1, L, L).
    static func checkAttentionMask(of session: InferenceSession, file: String) throws {
        guard let info = session.input(named: attentionMaskInput) else { return }
        let declared = "'\(info.name)' is \(info.elementType?.description ?? "not a tensor") "
            + "[\(info.shape.map(\.description).joined(separator: ", "))]"
        guard info.elementType == .bool else {
            throw CosyVoiceError.unusableAttentionMask(file: file, problem: declared)
        }
        guard info.shape.count == 4, info.shape[0].accepts(2), info.shape[1].accepts(1) else {
            throw CosyVoiceError.unusableAttentionMask(file: file, problem: declared)
        }
    }

    /// Upstream `DiT.forward`'s `attn_mask` for one batch row with every frame valid, row-major
    /// [frames, frames], true where frame i may attend to frame j.
    ///
    /// Streaming, `add_optional_chunk_mask(x, mask, False, False, 0, static_chunk_size, -1)`: the padding
    /// mask (all true here) and `subsequent_chunk_mask`, j < (i / 50 + 1) x 50, so a frame sees its own
    /// 50-frame chunk and every chunk to its left, chunks counted from the first prompt frame. Otherwise the
    /// padding mask alone: full attention.
    static func writeAttentionMask(frames: Int, streaming: Bool, into row: UnsafeMutableBufferPointer<Bool>) {
        for query in 0..<frames {
            let visible = streaming ? min(frames, (query / chunkFrames + 1) * chunkFrames) : frames
            let start = query * frames
            row[start..<(start + visible)].update(repeating: true)
            row[(start + visible)..<(start + frames)].update(repeating: false)
        }
    }

    /// Upstream's time points: t_i = 1 - cos(i / steps x pi / 2), i = 0...steps.
    ///
    /// Computed in double and rounded once; upstream rounds `linspace` to float32 first, which can
    /// differ in the last bit. (The seed app's linear dt = 0.1 is not upstream.)
    public static func cosineSchedule(steps: Int = steps) -> [Float] {
        (0...steps).map { Float(1 - cos(Double($0) / Double(steps) * Double.pi / 2)) }
    }

    /// Classifier-free guidance: (1 + rate) x conditional - rate x unconditional, element by element.
    ///
    /// Both weights are rounded to float32 from double, as torch does with the Python scalars upstream.
    public static func guided(conditional: ArraySlice<Float>, unconditional: ArraySlice<Float>,
                              rate: Double = guidanceRate) -> [Float] {
        let kept = Float(1 + rate), removed = Float(rate)
        return zip(conditional, unconditional).map { kept * $0 - removed * $1 }
    }

    /// Tokens the pre-lookahead layer reads past the one it encodes.
    public static let lookahead = 3

    /// The mel for `tokens` spoken by `voice` (already aligned: prompt mel frames = 2 x prompt tokens),
    /// without the prompt's frames.
    ///
    /// With `finalize` false (a streaming chunk) the last `lookahead` tokens only serve as the
    /// pre-lookahead's right context and get no frames, as upstream `inference(finalize=False)`. The
    /// export's pre-lookahead has no context input, but running it over all tokens gives the same
    /// values for every token before the last three, whose outputs are then dropped.
    ///
    /// `streaming` is upstream `inference(streaming=)`: with an estimator that takes the attention mask it
    /// runs under the chunk mask (see `writeAttentionMask`), otherwise it changes nothing. Upstream
    /// CosyVoice3Model streams its chunks before the last with it on and its last chunk, like a whole
    /// utterance, with it off.
    ///
    /// The batch-2 inputs are built once per call straight into their tensors; each Euler step writes
    /// x into both rows of the same input tensor, and reads the velocity where the runtime wrote it.
    public func mel(tokens: [Int], voice: VoicePrompt, noise: FlowNoise, finalize: Bool = true,
                    streaming: Bool = false) throws -> MelSpectrogram {
        let bins = MelSpectrogram.bins
        let allTokens = (voice.speechTokens + tokens).map(Int64.init)
        let embedded = try tokenEmbedding.output("embedded", of: ["token": Tensor(allTokens, shape: [1, allTokens.count])])
        let h = try preLookahead.output("h", of: ["token_embedded": embedded])
        let allFrames = allTokens.count * Self.tokenMelRatio
        guard h.shape == [1, allFrames, bins] else {
            throw CosyVoiceError.unexpectedOutput(model: preLookahead.modelPath, name: "h", shape: h.shape,
                                                  expected: "[1, \(allFrames), \(bins)]")
        }
        let frames = finalize ? allFrames : max(allFrames - Self.lookahead * Self.tokenMelRatio, voice.melFrames)
        let promptFrames = voice.melFrames
        let count = bins * frames

        let speaker = try speakerProjection.output("projected", of: [
            "embedding": speakerProjection.floatTensor(L2Normalization.normalized(voice.speakerEmbedding),
                                                       shape: [1, voice.speakerEmbedding.count], for: "embedding"),
        ])
        // Row 0 is conditional; row 1 has mu, spks and cond zeroed (upstream solve_euler with CFG).
        let muPair = try estimator.floatTensor(shape: [2, bins, frames], for: "mu") { pair in
            try h.withFloats { h in
                for frame in 0..<frames {
                    for bin in 0..<bins { pair[bin * frames + frame] = h[frame * bins + bin] }
                }
            }
            pair[count...].update(repeating: 0)
        }
        let condPair = try estimator.floatTensor(shape: [2, bins, frames], for: "cond") { pair in
            pair.update(repeating: 0)
            for frame in 0..<promptFrames {
                for bin in 0..<bins { pair[bin * frames + frame] = voice.mel[frame * bins + bin] }
            }
        }
        let spksPair = try estimator.floatTensor(shape: [2, speaker.elementCount], for: "spks") { pair in
            pair.update(repeating: 0)
            try speaker.withFloats { _ = pair.update(fromContentsOf: $0) }
        }
        let maskPair = try estimator.floatTensor(shape: [2, 1, frames], for: "mask") { $0.update(repeating: 1) }
        // Both batch rows get the same mask, as upstream's padding mask is the same for both.
        let attentionMask = try takesAttentionMask ? Tensor(shape: [2, 1, frames, frames], of: Bool.self) { pair in
            let size = frames * frames
            for row in 0..<2 {
                Self.writeAttentionMask(frames: frames, streaming: streaming,
                                        into: UnsafeMutableBufferPointer(rebasing: pair[(row * size)..<((row + 1) * size)]))
            }
        } : nil

        var x = [Float](repeating: 0, count: count)
        x.withUnsafeMutableBufferPointer { noise.write(frames, into: $0) }
        let xPair = try estimator.floatTensor(shape: [2, bins, frames], for: "x") { _ in }
        let tPair = try estimator.floatTensor(shape: [2], for: "t") { _ in }
        var names = ["x", "mask", "mu", "t", "spks", "cond"]
        var inputs = [xPair, maskPair, muPair, tPair, spksPair, condPair]
        if let attentionMask {
            names.append(Self.attentionMaskInput)
            inputs.append(attentionMask)
        }
        let plan = try estimator.plan(inputs: names, outputs: ["estimator_out"])
        var velocity: Tensor?
        let kept = Float(1 + Self.guidanceRate), removed = Float(Self.guidanceRate)

        // t and dt follow upstream's float32 bookkeeping: t += dt, then dt = t_span[step + 1] - t.
        let schedule = Self.cosineSchedule()
        var t = schedule[0]
        var dt = schedule[1] - schedule[0]
        for step in 1...Self.steps {
            try xPair.writeFloats { pair in
                _ = pair[0..<count].update(fromContentsOf: x)
                _ = pair[count...].update(fromContentsOf: x)
            }
            try tPair.writeFloats { $0.update(repeating: t) }
            velocity = try estimator.run(plan, inputs: inputs, outputs: [velocity])[0]
            guard velocity!.elementCount == 2 * count else {
                throw CosyVoiceError.unexpectedOutput(model: estimator.modelPath, name: "estimator_out",
                                                      shape: velocity!.shape, expected: "[2, \(bins), \(frames)]")
            }
            try velocity!.withFloats { v in
                x.withUnsafeMutableBufferPointer { x in Self.eulerStep(x, velocity: v, dt: dt, kept: kept, removed: removed) }
            }
            t = t + dt
            if step < Self.steps { dt = schedule[step + 1] - t }
        }
        return MelSpectrogram(frames: frames, values: x).frames(promptFrames..<frames)
    }

    /// x += dt x (kept x v_conditional - removed x v_unconditional), eight values at a time: the guided
    /// velocity (see `guided`) and the Euler step in one pass, with the same float32 operations in the
    /// same order for every value.
    static func eulerStep(_ x: UnsafeMutableBufferPointer<Float>, velocity v: UnsafeBufferPointer<Float>,
                          dt: Float, kept: Float, removed: Float) {
        let count = x.count
        let state = UnsafeMutableRawPointer(x.baseAddress!)
        let rows = UnsafeRawPointer(v.baseAddress!)
        var index = 0
        while index + 8 <= count {
            let conditional = rows.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self)
            let unconditional = rows.loadUnaligned(fromByteOffset: 4 * (count + index), as: SIMD8<Float>.self)
            let old = state.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self)
            let new = old + dt * (kept * conditional - removed * unconditional)
            state.storeBytes(of: new, toByteOffset: 4 * index, as: SIMD8<Float>.self)
            index += 8
        }
        while index < count {
            x[index] = x[index] + dt * (kept * v[index] - removed * v[count + index])
            index += 1
        }
    }
}
