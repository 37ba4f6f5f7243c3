import Foundation
import OnnxRuntime

/// Stage 3: mel to 24 kHz audio with HiFT (upstream `CausalHiFTGenerator.inference`).
///
/// F0 from the mel, a harmonic source from the F0, the source's STFT, then the decoder's magnitude
/// and phase back through an inverse STFT, clipped to +-0.99.
public struct Vocoder: Sendable {
    /// Output sample rate.
    public static let sampleRate = 24_000
    /// Samples per mel frame: upsampling 8 x 5 x 3, then the iSTFT hop of 4.
    public static let samplesPerFrame = 480
    /// Audio is clipped to this magnitude (upstream `audio_limit`).
    public static let audioLimit: Float = 0.99
    /// Mel frames at the end of a streaming chunk whose audio is held back until more mel arrives:
    /// upstream `CausalHiFTGenerator.inference(finalize=False)` drops the f0 predictor's look-right
    /// (3 frames) and conv_pre's look-right (4 frames) and then 480 more samples (1 frame).
    public static let streamingHoldbackFrames = 8

    let f0Predictor: InferenceSession
    let sourceGenerator: InferenceSession
    let decoder: InferenceSession

    /// The stage over the three HiFT sessions of `sessions`.
    public init(sessions: ModelFolder.Sessions) {
        f0Predictor = sessions[.f0Predictor]
        sourceGenerator = sessions[.sourceGenerator]
        decoder = sessions[.hiftDecoder]
    }

    /// `mel.frames x 480` samples of audio.
    public func audio(for mel: MelSpectrogram) throws -> [Float] {
        guard mel.frames > 0 else { return [] }
        let shape = [1, MelSpectrogram.bins, mel.frames]
        let melTensor = try f0Predictor.floatTensor(mel.values, shape: shape, for: "mel")
        let f0 = try f0Predictor.output("f0", of: ["mel": melTensor]).floats()
        let source = try sourceGenerator.output("source", of: [
            "f0": sourceGenerator.floatTensor(f0, shape: [1, 1, mel.frames], for: "f0"),
        ]).floats()

        let spectrum = SourceSpectrum.stft(source)
        let outputs = try decoder.run([
            "mel": decoder.floatTensor(mel.values, shape: shape, for: "mel"),
            "source_stft": decoder.floatTensor(spectrum.values, shape: [1, 2 * SourceSpectrum.bins, spectrum.frames],
                                               for: "source_stft"),
        ])
        guard let magnitude = outputs["magnitude"], let phase = outputs["phase"],
              magnitude.shape == [1, SourceSpectrum.bins, spectrum.frames], phase.shape == magnitude.shape
        else {
            throw CosyVoiceError.unexpectedOutput(model: decoder.modelPath, name: "magnitude",
                                                  shape: outputs["magnitude"]?.shape ?? [],
                                                  expected: "[1, 9, \(spectrum.frames)] with a phase of the same shape")
        }
        let audio = SourceSpectrum.istft(magnitude: try magnitude.floats(), phase: try phase.floats(),
                                         frames: spectrum.frames)
        return audio.map { min(max($0, -Self.audioLimit), Self.audioLimit) }
    }
}

/// HiFT's short-time Fourier transform: n_fft 16, hop 4, periodic Hann, centred (torch.stft / torch.istft
/// with `center=True`). A direct 16-point DFT is cheaper here than any FFT set-up.
///
/// Kept inside the vocoder until target `DSP` offers STFT/iSTFT; then this moves to it.
enum SourceSpectrum {
    static let fftSize = 16
    static let hop = 4
    /// One-sided bins: fftSize / 2 + 1.
    static let bins = 9
    /// Magnitudes are clipped to this before the inverse (upstream `_istft`).
    static let magnitudeLimit = 100.0

    static let window: [Double] = (0..<fftSize).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(fftSize)) }
    private static let cosines: [Double] = (0..<(bins * fftSize)).map {
        cos(2 * Double.pi * Double(($0 / fftSize) * ($0 % fftSize)) / Double(fftSize))
    }
    private static let sines: [Double] = (0..<(bins * fftSize)).map {
        sin(2 * Double.pi * Double(($0 / fftSize) * ($0 % fftSize)) / Double(fftSize))
    }

    /// The centred STFT of `signal` as [18, frames] channel-major: 9 real rows, then 9 imaginary rows.
    static func stft(_ signal: [Float]) -> (values: [Float], frames: Int) {
        let pad = fftSize / 2
        let count = signal.count
        guard count > pad else { return ([], 0) }
        // Reflect padding, as torch.stft(center=True, pad_mode="reflect").
        var padded = [Double](repeating: 0, count: count + 2 * pad)
        for index in 0..<padded.count {
            var source = index - pad
            if source < 0 { source = -source }
            if source >= count { source = 2 * (count - 1) - source }
            padded[index] = Double(signal[source])
        }
        let frames = 1 + (padded.count - fftSize) / hop
        var out = [Float](repeating: 0, count: 2 * bins * frames)
        var chunk = [Double](repeating: 0, count: fftSize)
        for frame in 0..<frames {
            for n in 0..<fftSize { chunk[n] = padded[frame * hop + n] * window[n] }
            for k in 0..<bins {
                var re = 0.0, im = 0.0
                for n in 0..<fftSize {
                    re += cosines[k * fftSize + n] * chunk[n]
                    im -= sines[k * fftSize + n] * chunk[n]
                }
                out[k * frames + frame] = Float(re)
                out[(bins + k) * frames + frame] = Float(im)
            }
        }
        return (out, frames)
    }

    /// The inverse of a centred STFT given [9, frames] magnitude and phase: a real inverse DFT per
    /// frame (DC and Nyquist imaginary parts ignored), windowed overlap-add, division by the summed
    /// squared window, then `fftSize / 2` samples trimmed at each end, leaving `hop x (frames - 1)`.
    /// (The community export's numpy iSTFT forgets the trim.)
    static func istft(magnitude: [Float], phase: [Float], frames: Int) -> [Float] {
        guard frames > 0 else { return [] }
        let length = fftSize + hop * (frames - 1)
        var out = [Double](repeating: 0, count: length)
        var envelope = [Double](repeating: 0, count: length)
        var real = [Double](repeating: 0, count: bins)
        var imaginary = [Double](repeating: 0, count: bins)
        for frame in 0..<frames {
            for k in 0..<bins {
                let m = min(Double(magnitude[k * frames + frame]), magnitudeLimit)
                let p = Double(phase[k * frames + frame])
                real[k] = m * cos(p)
                imaginary[k] = m * sin(p)
            }
            for n in 0..<fftSize {
                var sample = real[0] + real[bins - 1] * (n % 2 == 0 ? 1 : -1)
                for k in 1..<(bins - 1) {
                    sample += 2 * (real[k] * cosines[k * fftSize + n] - imaginary[k] * sines[k * fftSize + n])
                }
                sample /= Double(fftSize)
                out[frame * hop + n] += sample * window[n]
                envelope[frame * hop + n] += window[n] * window[n]
            }
        }
        let trim = fftSize / 2
        return (trim..<(length - trim)).map { index in
            Float(envelope[index] > 1e-11 ? out[index] / envelope[index] : out[index])
        }
    }
}
