import Foundation

/// Kaldi log mel filterbank features, as `torchaudio.compliance.kaldi.fbank` and kaldi-native-fbank compute them.
///
/// Per frame, in Kaldi's order: dither (when asked), DC removal, pre-emphasis (the first sample predicts
/// itself), window, zero-pad to a power of two, power spectrum, Kaldi mel banks, ln with a float-epsilon floor.
/// The defaults are the CAMPPlus speaker-embedding input of CosyVoice: 16 kHz, 80 bins, 25 ms / 10 ms,
/// povey window, `snip_edges`, no dither, and `subtractMean` for the per-bin mean over time it subtracts.
public struct KaldiFbank: Sendable {
    /// Input rate in Hz.
    public var sampleRate = 16_000
    /// Mel bins.
    public var melCount = 80
    /// Frame length and shift in samples (25 ms and 10 ms at 16 kHz).
    public var frameLength = 400
    public var frameShift = 160
    /// Pre-emphasis coefficient; 0 turns it off.
    public var preemphasis: Float = 0.97
    /// Whether each frame's mean is removed before pre-emphasis.
    public var removeDCOffset = true
    /// Kaldi's `snip_edges`: true keeps only frames inside the signal; false centers frames on
    /// `i * shift + shift / 2` and mirrors the edges (`(N + shift / 2) / shift` frames).
    public var snipEdges = true
    /// Mel range; a high frequency of 0 or below is an offset from Nyquist.
    public var lowFrequency = 20.0
    public var highFrequency = 0.0
    /// Standard deviation of Gaussian dither added to every sample of a frame; 0 (the default) for none.
    public var dither: Float = 0
    /// Seed for the dither noise, so dithered features are reproducible.
    public var ditherSeed: UInt64 = 0
    /// Subtract each bin's mean over all frames (CAMPPlus input).
    public var subtractMean = false

    /// The CosyVoice CAMPPlus input: defaults plus per-bin mean subtraction.
    public static let campPlus = KaldiFbank(subtractMean: true)

    /// Features with the given options; the rest keep their defaults.
    public init(melCount: Int = 80, snipEdges: Bool = true, subtractMean: Bool = false) {
        self.melCount = melCount
        self.snipEdges = snipEdges
        self.subtractMean = subtractMean
    }

    /// FFT points: the frame length rounded up to a power of two.
    public var paddedWindow: Int {
        var size = 1
        while size < frameLength { size *= 2 }
        return size
    }

    /// Frames for `sampleCount` samples.
    public func frameCount(for sampleCount: Int) -> Int { stft.frameCount(for: sampleCount) }

    private var stft: STFT {
        if snipEdges {
            return STFT(fftSize: paddedWindow, hopLength: frameShift, window: Window.povey(frameLength))
        }
        // Frame i starts at i * shift + shift/2 - length/2, and there are (N + shift/2) / shift frames.
        return STFT(fftSize: paddedWindow, hopLength: frameShift, window: Window.povey(frameLength),
                    padLeft: frameLength / 2 - frameShift / 2,
                    padRight: frameLength - frameShift / 2 - (frameLength / 2 - frameShift / 2),
                    padMode: .symmetric)
    }

    /// Features of `samples` (taken as they are: Kaldi scales int16 audio, CosyVoice passes [-1, 1]):
    /// frames x `melCount`.
    public func callAsFunction(_ samples: [Float]) -> Matrix {
        let stft = self.stft
        let preemphasis = self.preemphasis
        let removeDC = removeDCOffset
        var noise = SeededRandom(seed: ditherSeed)
        let dither = self.dither
        let mel = MelFilterbank.kaldi(sampleRate: sampleRate, paddedWindow: paddedWindow, melCount: melCount,
                                      lowFrequency: lowFrequency, highFrequency: highFrequency)
        var out = Matrix(rows: stft.frameCount(for: samples.count), columns: melCount)
        var power = [Float](repeating: 0, count: stft.binCount)
        let bins = stft.binCount
        let melCount = self.melCount
        out.values.withUnsafeMutableBufferPointer { output in
            power.withUnsafeMutableBufferPointer { power in
                stft.forEachFrame(of: samples, preprocess: { frame in
                    if dither != 0 {
                        for index in frame.indices { frame[index] += dither * noise.gaussian() }
                    }
                    if removeDC {
                        var sum: Float = 0
                        for value in frame { sum += value }
                        let mean = sum / Float(frame.count)
                        for index in frame.indices { frame[index] -= mean }
                    }
                    if preemphasis != 0 {
                        for index in stride(from: frame.count - 1, to: 0, by: -1) {
                            frame[index] -= preemphasis * frame[index - 1]
                        }
                        frame[0] -= preemphasis * frame[0]
                    }
                }) { index, re, im in
                    for bin in 0..<bins { power[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                    let row = output.baseAddress! + index * melCount
                    mel.apply(UnsafePointer(power.baseAddress!), rows: 1, into: row)
                }
            }
        }
        out.formLogarithm(floor: .ulpOfOne)
        if subtractMean { out.subtractColumnMeans() }
        return out
    }
}

extension Matrix {
    /// Subtracts each column's mean over the rows.
    mutating func subtractColumnMeans() {
        guard rows > 0 else { return }
        var means = [Double](repeating: 0, count: columns)
        for row in 0..<rows {
            for column in 0..<columns { means[column] += Double(values[row * columns + column]) }
        }
        for column in 0..<columns { means[column] /= Double(rows) }
        for row in 0..<rows {
            for column in 0..<columns { values[row * columns + column] -= Float(means[column]) }
        }
    }
}
