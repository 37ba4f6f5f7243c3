/// An audio codec failed or was given something it cannot read; each says what, where, and what to do.
public enum AudioCodecError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The bytes are not WAV, FLAC or MPEG audio; `start` shows their first bytes.
    case unrecognised(path: String, start: String)
    /// A FLAC or MP3 file that its decoder could not read to the end.
    case damaged(path: String, format: AudioFileKind, reason: String)
    /// A file that decoded to no samples at all.
    case noAudio(path: String, format: AudioFileKind)
    /// LAME, libFLAC, libopusenc or libavcodec failed while encoding.
    case encoderFailed(AudioEncoding, String)

    public var description: String {
        switch self {
        case .unrecognised(let path, let start):
            "\(path) is not WAV, FLAC or MP3 audio (it starts with \(start)); convert it to one of those."
        case .damaged(let path, let format, let reason):
            "\(path) is a damaged \(format.name) file (\(reason)); re-export or re-encode it."
        case .noAudio(let path, let format):
            "\(path) is a \(format.name) file with no audio in it; give a file that holds speech."
        case .encoderFailed(let encoding, let message):
            "\(encoding.rawValue.uppercased()) encoding failed: \(message)."
        }
    }
}
