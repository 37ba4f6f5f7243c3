/// The containers `AudioFileReader` decodes, told apart by their first bytes.
public enum AudioFileKind: String, Sendable, Equatable {
    /// RIFF or RF64 WAVE.
    case wav
    /// Native FLAC (`fLaC`), possibly after an ID3v2 tag.
    case flac
    /// MPEG audio layer I, II or III frames (MP3), possibly after an ID3v2 tag.
    case mpeg

    /// The name users know the format by.
    public var name: String {
        switch self {
        case .wav: "WAV"
        case .flac: "FLAC"
        case .mpeg: "MP3"
        }
    }

    /// The kind of audio `bytes` begin with, or nil when they begin with none of them.
    public init?(sniffing bytes: UnsafeRawBufferPointer) {
        func tag(_ offset: Int, _ text: String) -> Bool {
            let ascii = Array(text.utf8)
            return bytes.count >= offset + ascii.count && bytes[offset..<(offset + ascii.count)].elementsEqual(ascii)
        }
        if (tag(0, "RIFF") || tag(0, "RF64")) && tag(8, "WAVE") {
            self = .wav
            return
        }
        // An ID3v2 tag (10 bytes, a 28-bit size in 7-bit bytes, 10 more with a footer) may come first.
        var start = 0
        if tag(0, "ID3"), bytes.count >= 10 {
            let size = (0..<4).reduce(0) { $0 << 7 | Int(bytes[6 + $1] & 0x7F) }
            start = 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
        }
        if tag(start, "fLaC") {
            self = .flac
        } else if Self.isMPEGFrameHeader(bytes, at: start) {
            self = .mpeg
        } else {
            return nil
        }
    }

    /// Whether a valid MPEG audio frame header starts at `offset`: 11 sync bits, then a version, layer,
    /// bit rate and sample rate none of which is the reserved value.
    static func isMPEGFrameHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, bytes.count >= offset + 4 else { return false }
        let b1 = bytes[offset + 1], b2 = bytes[offset + 2]
        return bytes[offset] == 0xFF && b1 & 0xE0 == 0xE0
            && (b1 >> 3) & 0x3 != 0x1 && (b1 >> 1) & 0x3 != 0
            && b2 >> 4 != 0xF && (b2 >> 2) & 0x3 != 0x3
    }
}
