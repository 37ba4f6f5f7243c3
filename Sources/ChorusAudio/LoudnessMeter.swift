import Foundation

/// ITU-R BS.1770-4 integrated loudness in LUFS, computed as pyloudnorm's `Meter` computes it (its default
/// K-weighting and 400 ms blocks), and gain to a target loudness as `pyloudnorm.normalize.loudness` applies it.
///
/// Chatterbox Turbo normalises every voice clip to -27 LUFS with pyloudnorm before encoding it
/// (`tts_turbo.py` `norm_loudness`), so a voice folder made here must start from the same gain.
///
/// Steps, after pyloudnorm 0.2.0 `meter.py` and `iirfilter.py`:
/// 1. K-weighting: a high shelf (+4 dB, Q 1/sqrt 2, 1500 Hz) then a high pass (Q 0.5, 38 Hz), both biquads
///    designed for the signal's own rate with the audio-EQ-cookbook formulas and run as `lfilter` from rest.
/// 2. Blocks of 400 ms every 100 ms: `round((T - 0.4) / 0.1) + 1` of them (numpy's half-to-even), each the
///    sum of squares over the samples it covers divided by the full block length.
/// 3. Block loudness `-0.691 + 10 log10(sum of channel gain x mean square)`, gains 1, 1, 1, 1.41, 1.41.
/// 4. Absolute gate at -70 LUFS (kept when `>=`), relative gate 10 LU below the loudness of the kept
///    blocks (kept when `>` both gates), then the loudness of the blocks left.
/// Filters run in double precision with their outputs kept as float32 (pyloudnorm writes them back into the
/// float32 clip upstream gives it); the rest is double precision (numpy sums the float32 squares in float32,
/// so results agree with pyloudnorm to within 2e-7 LU on the goldens, not bit for bit).
public struct LoudnessMeter: Sendable {
    /// The sample rate the meter's filters are designed for, in Hz.
    public let sampleRate: Int
    /// The block length in seconds (BS.1770: 0.4).
    public let blockSeconds: Double

    /// A biquad as `scipy.signal.lfilter` runs it: coefficients divided by `a0`.
    struct Biquad: Sendable {
        let b0, b1, b2, a1, a2: Double

        /// `lfilter(b, a, x)` from rest (transposed direct form II, as scipy runs it), in double precision;
        /// pyloudnorm stores each stage's output back into the float32 input array, so it is rounded to Float.
        func apply(_ x: inout [Float]) {
            var z1 = 0.0, z2 = 0.0
            for index in x.indices {
                let input = Double(x[index])
                let output = b0 * input + z1
                z1 = b1 * input - a1 * output + z2
                z2 = b2 * input - a2 * output
                x[index] = Float(output)
            }
        }
    }

    /// The K-weighting filters in the order pyloudnorm applies them: the high shelf, then the high pass.
    let filters: [Biquad]

    /// Channel weights of BS.1770 (left, right, centre, left surround, right surround).
    static let channelGains: [Double] = [1.0, 1.0, 1.0, 1.41, 1.41]

    /// A meter for audio at `sampleRate` Hz.
    public init(sampleRate: Int, blockSeconds: Double = 0.4) throws {
        guard sampleRate > 0 else { throw AudioFileError.invalidSampleRate(sampleRate) }
        self.sampleRate = sampleRate
        self.blockSeconds = blockSeconds
        filters = [
            Self.highShelf(gainDB: 4.0, q: 1 / 2.0.squareRoot(), frequency: 1500.0, rate: Double(sampleRate)),
            Self.highPass(q: 0.5, frequency: 38.0, rate: Double(sampleRate)),
        ]
    }

    static func highShelf(gainDB: Double, q: Double, frequency: Double, rate: Double) -> Biquad {
        let a = pow(10, gainDB / 40)
        let w0 = 2 * Double.pi * (frequency / rate)
        let alpha = sin(w0) / (2 * q)
        let cosW0 = cos(w0), rootA = a.squareRoot()
        let b0 = a * ((a + 1) + (a - 1) * cosW0 + 2 * rootA * alpha)
        let b1 = -2 * a * ((a - 1) + (a + 1) * cosW0)
        let b2 = a * ((a + 1) + (a - 1) * cosW0 - 2 * rootA * alpha)
        let a0 = (a + 1) - (a - 1) * cosW0 + 2 * rootA * alpha
        let a1 = 2 * ((a - 1) - (a + 1) * cosW0)
        let a2 = (a + 1) - (a - 1) * cosW0 - 2 * rootA * alpha
        return Biquad(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    static func highPass(q: Double, frequency: Double, rate: Double) -> Biquad {
        let w0 = 2 * Double.pi * (frequency / rate)
        let alpha = sin(w0) / (2 * q)
        let cosW0 = cos(w0)
        let a0 = 1 + alpha
        return Biquad(
            b0: (1 + cosW0) / 2 / a0, b1: -(1 + cosW0) / a0, b2: (1 + cosW0) / 2 / a0,
            a1: -2 * cosW0 / a0, a2: (1 - alpha) / a0)
    }

    /// Integrated loudness of interleaved `samples` with `channels` channels (at most 5), in LUFS.
    /// Silence gives `-infinity`, as pyloudnorm does. Throws when the audio is shorter than one block.
    public func integratedLoudness(_ samples: [Float], channels: Int = 1) throws -> Double {
        guard channels >= 1, channels <= Self.channelGains.count else {
            throw AudioFileError.invalidChannelCount(channels)
        }
        guard samples.count % channels == 0 else {
            throw AudioFileError.partialFrame(sampleCount: samples.count, channels: channels)
        }
        let frames = samples.count / channels
        let blockLength = blockSeconds * Double(sampleRate)
        guard Double(frames) >= blockLength else {
            throw LoudnessError.tooShort(seconds: Double(frames) / Double(sampleRate), blockSeconds: blockSeconds)
        }
        let step = 0.25
        let duration = Double(frames) / Double(sampleRate)
        let blockCount = Int(((duration - blockSeconds) / (blockSeconds * step)).rounded(.toNearestOrEven)) + 1

        // Mean square of every block, per channel: z[channel][block].
        var meanSquares = [[Double]](repeating: [], count: channels)
        for channel in 0..<channels {
            var x = (0..<frames).map { samples[$0 * channels + channel] }
            for filter in filters { filter.apply(&x) }
            var z = [Double](repeating: 0, count: blockCount)
            for block in 0..<blockCount {
                // pyloudnorm's bounds: int() of the block's start and end times in samples; numpy slicing
                // cuts the end at the signal's length.
                let lower = Int(blockSeconds * (Double(block) * step) * Double(sampleRate))
                let upper = min(Int(blockSeconds * (Double(block) * step + 1) * Double(sampleRate)), frames)
                var sum = 0.0
                if lower < upper { for index in lower..<upper { sum += Double(x[index]) * Double(x[index]) } }
                z[block] = sum / blockLength
            }
            meanSquares[channel] = z
        }

        func loudness(ofMeanSquares values: [Double]) -> Double {
            var total = 0.0
            for (channel, value) in values.enumerated() { total += Self.channelGains[channel] * value }
            return -0.691 + 10 * log10(total)
        }
        let blockLoudness = (0..<blockCount).map { block in
            loudness(ofMeanSquares: (0..<channels).map { meanSquares[$0][block] })
        }
        func gatedMeans(_ kept: [Int]) -> [Double] {
            (0..<channels).map { channel in
                // numpy's mean of nothing is nan, which nan_to_num turns into 0 in the final average.
                guard !kept.isEmpty else { return .nan }
                return kept.reduce(0.0) { $0 + meanSquares[channel][$1] } / Double(kept.count)
            }
        }
        let absoluteGate = -70.0
        let aboveAbsolute = blockLoudness.indices.filter { blockLoudness[$0] >= absoluteGate }
        let relativeGate = loudness(ofMeanSquares: gatedMeans(aboveAbsolute)) - 10
        let kept = blockLoudness.indices.filter { blockLoudness[$0] > relativeGate && blockLoudness[$0] > absoluteGate }
        return loudness(ofMeanSquares: gatedMeans(kept).map { $0.isNaN ? 0 : $0 })
    }

    /// The linear gain that moves audio of `loudness` LUFS to `target` LUFS (`10^((target - loudness) / 20)`).
    public static func gain(from loudness: Double, to target: Double) -> Double {
        pow(10, (target - loudness) / 20)
    }

    /// `samples` scaled to `target` LUFS, as Chatterbox's `norm_loudness` does it: the gain is applied only
    /// when it is finite and positive (silence, whose loudness is -infinity, is returned unchanged).
    public func normalized(_ samples: [Float], channels: Int = 1, to target: Double) throws -> [Float] {
        let gain = Self.gain(from: try integratedLoudness(samples, channels: channels), to: target)
        guard gain.isFinite, gain > 0 else { return samples }
        // Upstream multiplies librosa's float32 clip by numpy's float64 gain scalar; numpy 1.26 (what
        // chatterbox-tts 0.1.7 installs) keeps the array's float32 and rounds the gain to it.
        let single = Float(gain)
        return samples.map { $0 * single }
    }
}

/// Why loudness could not be measured.
public enum LoudnessError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The audio is shorter than one measuring block.
    case tooShort(seconds: Double, blockSeconds: Double)

    public var description: String {
        switch self {
        case .tooShort(let seconds, let block):
            "Audio of \(String(format: "%.3f", seconds)) s is shorter than one \(String(format: "%.1f", block)) s "
                + "loudness block; give a longer clip."
        }
    }
}
