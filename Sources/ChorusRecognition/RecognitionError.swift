/// What can go wrong recognising speech, worded for the person who has to fix it (a model file that is
/// absent is a `ModelError`).
public enum RecognitionError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A model file does not have the interface of a CTC head.
    case unexpectedModel(path: String, reason: String)
    /// A bucket file's declared input length differs from the length in its name.
    case bucketMismatch(path: String, named: Int, declared: String)
    /// The features do not have the channel count the model declares.
    case featureChannelMismatch(path: String, expected: Int, actual: Int)
    /// The input is longer than the largest bucket and must be cut first.
    case inputTooLong(frames: Int, largestBucket: Int)
    /// The audio is not at the rate the recogniser runs at.
    case sampleRateMismatch(expected: Int, actual: Int)
    /// A vocabulary has a different size than the head's output.
    case vocabularyMismatch(model: String, vocabulary: String, tokens: Int, classes: Int)
    /// The audio holds a NaN or infinite sample, which would turn every feature into NaN.
    case nonFiniteSample(index: Int)

    public var description: String {
        switch self {
        case .unexpectedModel(let path, let reason):
            return "\(path) is not a CTC model Chorus can run: \(reason)."
        case .bucketMismatch(let path, let named, let declared):
            return "\(path) is named for \(named) frames but declares an input of \(declared) frames; rename it to match."
        case .featureChannelMismatch(let path, let expected, let actual):
            return "\(path) reads \(expected) feature channels but was given \(actual); use the feature extractor the model was trained with."
        case .inputTooLong(let frames, let largest):
            return "\(frames) feature frames do not fit the largest bucket (\(largest)); cut the audio into chunks first."
        case .sampleRateMismatch(let expected, let actual):
            return "The recogniser runs on \(expected) Hz audio but was given \(actual) Hz; resample it first."
        case .vocabularyMismatch(let model, let vocabulary, let tokens, let classes):
            return "\(vocabulary) holds \(tokens) tokens, but \(model) outputs \(classes) classes, which needs \(classes - 1) "
                + "tokens plus the blank; use the vocabulary exported with that model."
        case .nonFiniteSample(let index):
            return "Audio sample \(index) is not a finite number (NaN or infinity); the audio is corrupt, so decode or record it again."
        }
    }
}
