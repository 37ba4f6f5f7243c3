import Foundation

/// Whisper's log-mel spectrogram (openai/whisper `audio.py`, `log_mel_spectrogram`).
///
/// 16 kHz, 400-point FFT every 160 samples with a periodic Hann window, centered with reflect padding, the
/// last frame dropped, power, Slaney mel filters (80 or 128), log10 with a 1e-10 floor, clamped to 8 below the
/// maximum, then (x + 4) / 4. Whisper itself works on 30 s windows; `padToSeconds` zero-pads (or cuts) the
/// input to that length first, as its transcription loop and the onnx-asr graphs do.
public struct WhisperLogMel: FeatureExtractor {
    public let sampleRate = 16_000
    /// Mel bins: 80, or 128 for large-v3.
    public let melCount: Int
    /// When set, the input is zero-padded or cut to this many seconds first.
    public var padToSeconds: Int?
    public var featureCount: Int { melCount }

    private let stft: STFT
    private let filters: MelFilterbank

    /// Whisper features with `melCount` bins.
    public init(melCount: Int = 80, padToSeconds: Int? = nil) {
        self.melCount = melCount
        self.padToSeconds = padToSeconds
        stft = .centered(fftSize: 400, hopLength: 160, window: Window.hann(400, periodic: true))
        filters = .librosa(sampleRate: 16_000, fftSize: 400, melCount: melCount)
    }

    public func callAsFunction(_ samples: [Float]) -> Matrix {
        var input = samples
        if let seconds = padToSeconds {
            let length = seconds * sampleRate
            input = Array(input.prefix(length)) + [Float](repeating: 0, count: max(0, length - input.count))
        }
        // Whisper drops the last STFT frame.
        var mel = stft.melSpectrogram(input, filters: filters,
                                      frameLimit: max(0, stft.frameCount(for: input.count) - 1))
        mel.formLogarithm(floor: 1e-10, scale: Float(1 / log(10.0)))
        var maximum = -Float.infinity
        for value in mel.values { maximum = max(maximum, value) }
        let floor = maximum - 8
        for index in mel.values.indices { mel.values[index] = (max(mel.values[index], floor) + 4) / 4 }
        return mel
    }
}
