/// What can go wrong running voice activity detection, worded for the person who has to fix it.
public enum VADError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The model does not have the inputs and outputs of a Silero VAD export.
    case unexpectedModel(path: String, reason: String)
    /// Silero works at 16 kHz and 8 kHz only.
    case unsupportedSampleRate(Int)
    /// A window handed to the model has the wrong number of samples.
    case windowSizeMismatch(expected: Int, actual: Int)
    /// A segmentation parameter is outside what makes sense.
    case invalidParameter(name: String, value: Double, reason: String)
    /// The audio holds a NaN or infinite sample, which the model would read as silence.
    case nonFiniteSample(index: Int)

    public var description: String {
        switch self {
        case .unexpectedModel(let path, let reason):
            return "\(path) is not a Silero VAD model Chorus can run: \(reason). Use silero_vad.onnx from silero-vad 5 or 6."
        case .unsupportedSampleRate(let rate):
            return "Silero VAD runs at 16000 or 8000 Hz, not \(rate) Hz; resample the audio first."
        case .windowSizeMismatch(let expected, let actual):
            return "A VAD window must hold exactly \(expected) samples at this rate, got \(actual)."
        case .invalidParameter(let name, let value, let reason):
            return "VAD parameter \(name) = \(value) is invalid: \(reason)."
        case .nonFiniteSample(let index):
            return "Audio sample \(index) is not a finite number (NaN or infinity); the audio is corrupt, so decode or record it again."
        }
    }
}
