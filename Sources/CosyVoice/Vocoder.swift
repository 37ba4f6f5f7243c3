import DSP
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
    /// HiFT's STFT: n_fft 16, hop 4, periodic Hann, centred with reflect padding (torch.stft/istft center=True).
    static let stft = STFT.centered(fftSize: 16, hopLength: 4, window: Window.hann(16, periodic: true))
    /// Magnitudes are clipped to this before the inverse (upstream `_istft`).
    static let magnitudeLimit: Float = 100

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

        let spectrum = Self.sourceSpectrum(source)
        let bins = Self.stft.binCount
        let outputs = try decoder.run([
            "mel": decoder.floatTensor(mel.values, shape: shape, for: "mel"),
            "source_stft": decoder.floatTensor(spectrum.values, shape: [1, 2 * bins, spectrum.frames],
                                               for: "source_stft"),
        ])
        guard let magnitude = outputs["magnitude"], let phase = outputs["phase"],
              magnitude.shape == [1, bins, spectrum.frames], phase.shape == magnitude.shape
        else {
            throw CosyVoiceError.unexpectedOutput(model: decoder.modelPath, name: "magnitude",
                                                  shape: outputs["magnitude"]?.shape ?? [],
                                                  expected: "[1, 9, \(spectrum.frames)] with a phase of the same shape")
        }
        let audio = Self.inverse(magnitude: try magnitude.floats(), phase: try phase.floats(), frames: spectrum.frames)
        return audio.map { min(max($0, -Self.audioLimit), Self.audioLimit) }
    }

    /// The source's centred STFT as the decoder reads it: [18, frames] channel-major, 9 real rows then 9 imaginary.
    static func sourceSpectrum(_ source: [Float]) -> (values: [Float], frames: Int) {
        let (real, imag) = stft.spectrogram(source)
        return (real.transposed().values + imag.transposed().values, real.rows)
    }

    /// The audio of [9, frames] channel-major magnitude (clipped to 100) and phase: torch.istft with
    /// center=True, so `n_fft / 2` samples are trimmed at each end and `hop x (frames - 1)` remain.
    /// (The community export's numpy iSTFT forgets the trim.)
    static func inverse(magnitude: [Float], phase: [Float], frames: Int) -> [Float] {
        let bins = stft.binCount
        var real = Matrix(rows: frames, columns: bins)
        var imag = Matrix(rows: frames, columns: bins)
        for bin in 0..<bins {
            for frame in 0..<frames {
                let m = min(magnitude[bin * frames + frame], magnitudeLimit)
                let p = phase[bin * frames + frame]
                real.values[frame * bins + bin] = m * cos(p)
                imag.values[frame * bins + bin] = m * sin(p)
            }
        }
        return stft.inverse(real: real, imag: imag)
    }
}
