/// What can go wrong recognising speech, worded for the person who has to fix it.
public enum RecognitionError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The model folder lacks a file the recogniser needs.
    case missingModelFile(folder: String, file: String, remedy: String)
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
    case vocabularyMismatch(path: String, vocabulary: Int, classes: Int)

    public var description: String {
        switch self {
        case .missingModelFile(let folder, let file, let remedy):
            return "The recogniser model in \(folder) has no \(file). \(remedy)"
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
        case .vocabularyMismatch(let path, let vocabulary, let classes):
            return "\(path) lists \(vocabulary) tokens, but the head outputs \(classes) classes (tokens plus blank); they must belong together."
        }
    }
}
