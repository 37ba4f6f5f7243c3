/// Errors of the streaming pipeline and its controller, worded for the user.
///
/// Errors a provider raises are passed through unchanged, not wrapped in this type.
public enum StreamingError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `start()` was called on a controller that had already started.
    case alreadyStarted
    /// `start()` was called on a controller that was cancelled.
    case alreadyCancelled
    /// The controller was asked to wait before it was started.
    case notStarted
    /// The pipeline is already playing a stream; a pipeline plays one at a time.
    case pipelineBusy
    /// A provider or sink declared a format the pipeline cannot use.
    case invalidFormat(AudioFormat, reason: String)

    public var description: String {
        switch self {
        case .alreadyStarted:
            "The speech stream has already started; create a new controller for another utterance."
        case .alreadyCancelled:
            "The speech stream was cancelled; create a new controller to speak again."
        case .notStarted:
            "The speech stream has not started; call start() first."
        case .pipelineBusy:
            "The audio pipeline is already playing a stream; wait for it to finish or use another pipeline."
        case .invalidFormat(let format, let reason):
            "The audio format \(format) cannot be played: \(reason)."
        }
    }
}
