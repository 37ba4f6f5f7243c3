import Foundation

/// NeMo's `FilterbankFeatures` as FastConformer CTC/TDT models are exported with it.
///
/// 16 kHz; pre-emphasis 0.97 (the first sample kept); `torch.stft` with n_fft 512, hop 160 and a 400-point
/// symmetric Hann window centered in the frame, center=True with zero padding; power; 80 or 128 Slaney mel
/// filters; ln(x + 2^-24); each feature normalised over the valid frames (mean, unbiased std + 1e-5).
/// Valid frames are `N / 160` (NeMo's `get_seq_len`); the one frame past them is set to 0. No dither.
public struct NeMoFilterbank: FeatureExtractor {
    public let sampleRate = 16_000
    /// Mel bins.
    public let melCount: Int
    public var featureCount: Int { melCount }
    /// Pre-emphasis coefficient; 0 turns it off.
    public var preemphasis: Float = 0.97
    /// Whether features are normalised per feature over time.
    public var normalize = true

    private let stft: STFT
    private let filters: MelFilterbank
    static let logGuard = Float(pow(2.0, -24.0))

    /// NeMo features with `melCount` bins.
    public init(melCount: Int = 80) {
        self.melCount = melCount
        stft = .centered(fftSize: 512, hopLength: 160, window: Window.hann(400, periodic: false), padMode: .zeros)
        filters = .librosa(sampleRate: 16_000, fftSize: 512, melCount: melCount)
    }

    /// Frames NeMo counts as valid for `sampleCount` samples.
    public func validFrames(for sampleCount: Int) -> Int { sampleCount / 160 }

    public func callAsFunction(_ samples: [Float]) -> Matrix {
        var input = samples
        if preemphasis != 0 {
            for index in stride(from: input.count - 1, to: 0, by: -1) { input[index] -= preemphasis * samples[index - 1] }
        }
        var mel = stft.melSpectrogram(input, filters: filters)
        mel.formLogarithm(offset: Self.logGuard, floor: Self.logGuard)
        guard normalize else { return mel }
        let valid = min(validFrames(for: samples.count), mel.rows)
        for column in 0..<mel.columns {
            var sum: Double = 0
            for row in 0..<valid { sum += Double(mel[row, column]) }
            let mean = valid > 0 ? sum / Double(valid) : 0
            var squares: Double = 0
            for row in 0..<valid {
                let deviation = Double(mel[row, column]) - mean
                squares += deviation * deviation
            }
            // One valid frame: NeMo turns the NaN of the n - 1 division into a deviation of 0.
            let deviation = (valid > 1 ? (squares / Double(valid - 1)).squareRoot() : 0) + 1e-5
            for row in 0..<mel.rows {
                mel[row, column] = row < valid ? Float((Double(mel[row, column]) - mean) / deviation) : 0
            }
        }
        return mel
    }
}
