/// The encodings Chorus writes audio in, as a file or as a stream of bytes.
public enum AudioEncoding: String, Sendable, CaseIterable {
    /// WAV: a header, then 16-bit samples.
    case wav
    /// Bare signed 16-bit little-endian mono samples, no header.
    case pcm
    /// MP3, 64 kbit/s constant, mono (LAME, Debian's libmp3lame).
    case mp3
    /// FLAC, 16-bit mono, lossless (libFLAC, Debian's libflac).
    case flac
    /// Ogg Opus, mono, 32 kbit/s, decoded at 48 kHz (libopusenc, Debian's libopusenc).
    case opus
    /// AAC-LC in ADTS frames, mono, 64 kbit/s (FFmpeg's encoder, Debian's libavcodec).
    case aac

    /// The encoding a file name's extension names (`out.mp3`, `OUT.FLAC`, `x.wav`, `x.pcm` or `x.raw`, `x.opus` or
    /// `x.ogg`, `x.aac`), or nil.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "pcm", "raw": self = .pcm
        case "mp3": self = .mp3
        case "flac": self = .flac
        case "opus", "ogg": self = .opus
        case "aac": self = .aac
        default: return nil
        }
    }

    /// The media type a response in this encoding carries.
    public var mediaType: String {
        switch self {
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        case .mp3: "audio/mpeg"
        case .flac: "audio/flac"
        case .opus: "audio/ogg"
        case .aac: "audio/aac"
        }
    }
}
