import Foundation

/// The Matcha-TTS / HiFi-GAN mel spectrogram that CosyVoice computes for its prompt audio.
///
/// 24 kHz; reflect-pad (n_fft - hop) / 2 each side, then frames without centering; 1920-point FFT every 480
/// samples with a periodic Hann window; magnitude sqrt(re^2 + im^2 + 1e-9); 80 Slaney mel filters from 0 to
/// 12 kHz; ln(max(x, 1e-5)). Gives N / 480 frames for N samples.
public struct MatchaMel: FeatureExtractor {
    public let sampleRate: Int
    /// Mel bins.
    public let melCount: Int
    public var featureCount: Int { melCount }

    private let stft: STFT
    private let filters: MelFilterbank

    /// Matcha features; the defaults are CosyVoice 2/3's.
    public init(sampleRate: Int = 24_000, fftSize: Int = 1920, hopLength: Int = 480, melCount: Int = 80,
                minFrequency: Double = 0, maxFrequency: Double? = 12_000) {
        self.sampleRate = sampleRate
        self.melCount = melCount
        let pad = (fftSize - hopLength) / 2
        stft = STFT(fftSize: fftSize, hopLength: hopLength, window: Window.hann(fftSize, periodic: true),
                    padLeft: pad, padRight: pad, padMode: .reflect)
        filters = .librosa(sampleRate: sampleRate, fftSize: fftSize, melCount: melCount,
                           minFrequency: minFrequency, maxFrequency: maxFrequency)
    }

    public func callAsFunction(_ samples: [Float]) -> Matrix {
        var mel = stft.melSpectrogram(samples, filters: filters, magnitudeEpsilon: 1e-9)
        mel.formLogarithm(floor: 1e-5)
        return mel
    }
}
