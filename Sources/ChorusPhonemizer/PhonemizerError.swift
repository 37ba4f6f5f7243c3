/// Errors from turning text into phonemes.
public enum PhonemizerError: Error, Equatable, CustomStringConvertible, Sendable {
    /// espeak-ng could not start, usually because its data files are missing.
    case espeakUnavailable(reason: String)
    /// espeak-ng has no voice of this name.
    case unknownVoice(String)

    public var description: String {
        switch self {
        case .espeakUnavailable(let reason):
            "espeak-ng could not start (\(reason)). Install it with `apt-get install espeak-ng-data libespeak-ng-dev` or run scripts/setup.sh; set ESPEAK_DATA_PATH if its data lives elsewhere."
        case .unknownVoice(let name):
            "espeak-ng has no voice '\(name)'; `espeak-ng --voices` lists them (e.g. en-us, en-gb, fr, de, es)."
        }
    }
}
