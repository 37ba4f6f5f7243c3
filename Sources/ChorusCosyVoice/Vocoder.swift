import Foundation
import ChorusONNX

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
    ///
    /// Tensors are filled and read in place: the mel is made once for both models that read it, the
    /// source's STFT is written straight into the decoder's input, and the inverse reads the decoder's
    /// outputs where the runtime left them.
    public func audio(for mel: MelSpectrogram) throws -> [Float] {
        guard mel.frames > 0 else { return [] }
        let shape = [1, MelSpectrogram.bins, mel.frames]
        let melTensor = try f0Predictor.floatTensor(mel.values, shape: shape, for: "mel")
        let f0 = try f0Predictor.output("f0", of: ["mel": melTensor])
        let f0Input = try sourceGenerator.floatTensor(shape: [1, 1, mel.frames], for: "f0") { row in
            try f0.withFloats { values in
                guard values.count == mel.frames else {
                    throw CosyVoiceError.unexpectedOutput(model: f0Predictor.modelPath, name: "f0", shape: f0.shape,
                                                          expected: "[1, \(mel.frames)]")
                }
                _ = row.update(fromContentsOf: values)
            }
        }
        let source = try sourceGenerator.output("source", of: ["f0": f0Input])
        let samples = mel.frames * Self.samplesPerFrame
        guard source.elementCount == samples else {
            throw CosyVoiceError.unexpectedOutput(model: sourceGenerator.modelPath, name: "source", shape: source.shape,
                                                  expected: "[1, 1, \(samples)]")
        }
        let frames = HiFTTransform.frameCount(samples: samples)
        let spectrum = try decoder.floatTensor(shape: [1, 2 * HiFTTransform.bins, frames], for: "source_stft") { spectrum in
            try source.withFloats { HiFTTransform.forward($0, into: spectrum) }
        }
        let decoderMel = decoder.input(named: "mel")?.elementType == melTensor.elementType ? melTensor
            : try decoder.floatTensor(mel.values, shape: shape, for: "mel")
        let outputs = try decoder.run(["mel": decoderMel, "source_stft": spectrum])
        guard let magnitude = outputs["magnitude"], let phase = outputs["phase"],
              magnitude.shape == [1, HiFTTransform.bins, frames], phase.shape == magnitude.shape
        else {
            throw CosyVoiceError.unexpectedOutput(model: decoder.modelPath, name: "magnitude",
                                                  shape: outputs["magnitude"]?.shape ?? [],
                                                  expected: "[1, 9, \(frames)] with a phase of the same shape")
        }
        var audio = [Float](repeating: 0, count: samples)
        try magnitude.withFloats { magnitude in
            try phase.withFloats { phase in
                audio.withUnsafeMutableBufferPointer { audio in
                    HiFTTransform.inverse(magnitude: magnitude, phase: phase, frames: frames,
                                          magnitudeLimit: Self.magnitudeLimit, audioLimit: Self.audioLimit, into: audio)
                }
            }
        }
        return audio
    }

    /// The source's centred STFT as the decoder reads it: [18, frames] channel-major, 9 real rows then 9 imaginary.
    static func sourceSpectrum(_ source: [Float]) -> (values: [Float], frames: Int) {
        let frames = HiFTTransform.frameCount(samples: source.count)
        var values = [Float](repeating: 0, count: 2 * HiFTTransform.bins * frames)
        source.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { HiFTTransform.forward(source, into: $0) }
        }
        return (values, frames)
    }

    /// The audio of [9, frames] channel-major magnitude (clipped to 100) and phase: torch.istft with
    /// center=True, so `n_fft / 2` samples are trimmed at each end and `hop x (frames - 1)` remain,
    /// clipped to +-0.99. (The community export's numpy iSTFT forgets the trim.)
    static func inverse(magnitude: [Float], phase: [Float], frames: Int) -> [Float] {
        var audio = [Float](repeating: 0, count: HiFTTransform.hop * (frames - 1))
        magnitude.withUnsafeBufferPointer { magnitude in
            phase.withUnsafeBufferPointer { phase in
                audio.withUnsafeMutableBufferPointer { audio in
                    HiFTTransform.inverse(magnitude: magnitude, phase: phase, frames: frames,
                                          magnitudeLimit: magnitudeLimit, audioLimit: audioLimit, into: audio)
                }
            }
        }
        return audio
    }
}
