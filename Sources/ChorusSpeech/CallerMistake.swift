/// An error that can say whether what the caller gave is at fault (a clip, a text, an id) rather than the
/// engine or its model, so a server answers it with 4xx and keeps 5xx for its own failures.
public protocol CallerMistake: Error {
    /// Whether the caller's input caused this error, and the caller can fix it by sending something else.
    var isCallersMistake: Bool { get }
}

extension SpeechError: CallerMistake {
    public var isCallersMistake: Bool {
        switch self {
        case .invalidModelFile, .missingModelOutput, .invalidSetting, .voicesFolderIsAFile, .voiceNotWritten, .noVoices: false
        default: true
        }
    }
}
