import Foundation

/// Frequency <-> mel conversions.
public enum MelScale: Sendable, Equatable {
    /// Slaney's Auditory Toolbox scale: linear below 1 kHz, logarithmic above (librosa's default).
    case slaney
    /// HTK: 2595 log10(1 + f / 700).
    case htk
    /// Kaldi: 1127 ln(1 + f / 700).
    case kaldi

    /// Mels of `hertz`.
    public func mel(_ hertz: Double) -> Double {
        switch self {
        case .htk: 2595 * log10(1 + hertz / 700)
        case .kaldi: 1127 * log(1 + hertz / 700)
        case .slaney:
            hertz >= Self.slaneyBreak
                ? Self.slaneyBreak / Self.slaneyStep + log(hertz / Self.slaneyBreak) / Self.slaneyLogStep
                : hertz / Self.slaneyStep
        }
    }

    /// Hertz of `mel`.
    public func hertz(_ mel: Double) -> Double {
        switch self {
        case .htk: 700 * (pow(10, mel / 2595) - 1)
        case .kaldi: 700 * (exp(mel / 1127) - 1)
        case .slaney:
            mel >= Self.slaneyBreak / Self.slaneyStep
                ? Self.slaneyBreak * exp(Self.slaneyLogStep * (mel - Self.slaneyBreak / Self.slaneyStep))
                : mel * Self.slaneyStep
        }
    }

    private static let slaneyStep = 200.0 / 3
    private static let slaneyBreak = 1000.0
    private static let slaneyLogStep = log(6.4) / 27
}

/// Triangular mel filters over the bins of a real FFT, stored with each filter's non-zero bin range.
public struct MelFilterbank: Sendable {
    /// Filters (rows of `weights`).
    public let melCount: Int
    /// FFT bins each filter spans (columns of `weights`).
    public let binCount: Int
    /// melCount x binCount weights.
    public let weights: Matrix
    /// First and one-past-last non-zero bin of each filter.
    private let ranges: [Range<Int>]
    /// Each filter's weights over its range, one filter after the other, and where each filter's run starts.
    private let packed: [Float]
    private let packedStart: [Int]

    /// Filters from a weight matrix (mels x bins).
    public init(weights: Matrix) {
        self.weights = weights
        melCount = weights.rows
        binCount = weights.columns
        ranges = (0..<weights.rows).map { mel in
            let row = weights.row(mel)
            guard let first = row.firstIndex(where: { $0 != 0 }), let last = row.lastIndex(where: { $0 != 0 }) else {
                return 0..<0
            }
            return first..<(last + 1)
        }
        var packed: [Float] = []
        var packedStart: [Int] = []
        for (mel, range) in ranges.enumerated() {
            packedStart.append(packed.count)
            packed += range.map { weights[mel, $0] }
        }
        packedStart.append(packed.count)
        self.packed = packed
        self.packedStart = packedStart
    }

    /// `librosa.filters.mel`: `melCount` triangles evenly spaced on `scale` between `minFrequency` and
    /// `maxFrequency` (default Nyquist), with Slaney area normalisation (`norm='slaney'`) when `slaneyNorm`.
    public static func librosa(
        sampleRate: Int, fftSize: Int, melCount: Int, minFrequency: Double = 0, maxFrequency: Double? = nil,
        scale: MelScale = .slaney, slaneyNorm: Bool = true
    ) -> MelFilterbank {
        let bins = fftSize / 2 + 1
        let top = maxFrequency ?? Double(sampleRate) / 2
        let low = scale.mel(minFrequency)
        let high = scale.mel(top)
        let edges = (0..<(melCount + 2)).map { scale.hertz(low + (high - low) * Double($0) / Double(melCount + 1)) }
        var weights = Matrix(rows: melCount, columns: bins)
        for mel in 0..<melCount {
            let lowerWidth = edges[mel + 1] - edges[mel]
            let upperWidth = edges[mel + 2] - edges[mel + 1]
            let norm = slaneyNorm ? 2 / (edges[mel + 2] - edges[mel]) : 1
            for bin in 0..<bins {
                let frequency = Double(bin) * Double(sampleRate) / Double(fftSize)
                let rising = (frequency - edges[mel]) / lowerWidth
                let falling = (edges[mel + 2] - frequency) / upperWidth
                let value = max(0, min(rising, falling))
                weights[mel, bin] = Float(value * norm)
            }
        }
        return MelFilterbank(weights: weights)
    }

    /// Kaldi's `MelBanks` (as torchaudio's `get_mel_banks`): triangles on the Kaldi mel scale between
    /// `lowFrequency` and `highFrequency` (0 or negative: offset from Nyquist), unnormalised; the Nyquist bin
    /// of the `paddedWindow`-point FFT gets no weight.
    public static func kaldi(
        sampleRate: Int, paddedWindow: Int, melCount: Int, lowFrequency: Double = 20, highFrequency: Double = 0
    ) -> MelFilterbank {
        let nyquist = Double(sampleRate) / 2
        let high = highFrequency <= 0 ? nyquist + highFrequency : highFrequency
        let binWidth = Double(sampleRate) / Double(paddedWindow)
        let scale = MelScale.kaldi
        let melLow = scale.mel(lowFrequency)
        let melHigh = scale.mel(high)
        let delta = (melHigh - melLow) / Double(melCount + 1)
        let bins = paddedWindow / 2 + 1
        var weights = Matrix(rows: melCount, columns: bins)
        for mel in 0..<melCount {
            let left = melLow + Double(mel) * delta
            let center = left + delta
            let right = center + delta
            for bin in 0..<(bins - 1) {
                let m = scale.mel(binWidth * Double(bin))
                let value = max(0, min((m - left) / (center - left), (right - m) / (right - center)))
                weights[mel, bin] = Float(value)
            }
        }
        return MelFilterbank(weights: weights)
    }

    /// Applies the filters to `rows` spectra (each `binCount` long) at `spectra`, writing `melCount` values per row.
    public func apply(_ spectra: UnsafePointer<Float>, rows: Int, into output: UnsafeMutablePointer<Float>) {
        ranges.withUnsafeBufferPointer { ranges in
            packed.withUnsafeBufferPointer { packed in
                packedStart.withUnsafeBufferPointer { starts in
                    for row in 0..<rows {
                        let spectrum = spectra + row * binCount
                        let out = output + row * melCount
                        for mel in 0..<melCount {
                            let first = ranges[mel].lowerBound
                            let weights = packed.baseAddress! + starts[mel]
                            var sum: Float = 0
                            for index in 0..<(starts[mel + 1] - starts[mel]) { sum += weights[index] * spectrum[first + index] }
                            out[mel] = sum
                        }
                    }
                }
            }
        }
    }

    /// Applies the filters to eight spectra at once (one per lane, `binCount` lanes), writing `melCount` lanes;
    /// each lane gets exactly the arithmetic of `apply(_:rows:into:)`.
    func apply(lanes spectrum: UnsafePointer<SIMD8<Float>>, into output: UnsafeMutablePointer<SIMD8<Float>>) {
        ranges.withUnsafeBufferPointer { ranges in
            packed.withUnsafeBufferPointer { packed in
                packedStart.withUnsafeBufferPointer { starts in
                    for mel in 0..<melCount {
                        let first = ranges[mel].lowerBound
                        let weights = packed.baseAddress! + starts[mel]
                        var sum = SIMD8<Float>()
                        for index in 0..<(starts[mel + 1] - starts[mel]) { sum += weights[index] * spectrum[first + index] }
                        output[mel] = sum
                    }
                }
            }
        }
    }

    /// The filters applied to every row of a frames x bins spectrogram.
    public func apply(_ spectrogram: Matrix) -> Matrix {
        precondition(spectrogram.columns == binCount, "spectrogram has \(spectrogram.columns) bins, filters \(binCount)")
        var out = Matrix(rows: spectrogram.rows, columns: melCount)
        spectrogram.values.withUnsafeBufferPointer { input in
            out.values.withUnsafeMutableBufferPointer { output in
                apply(input.baseAddress!, rows: spectrogram.rows, into: output.baseAddress!)
            }
        }
        return out
    }
}
