import ChorusAudio
import Foundation

/// Reads a WAV, FLAC or MP3 file as mono samples, choosing the decoder by the file's first bytes, never
/// by its name: WAV of any rate and channel count in PCM 8/16/24/32-bit or float (ChorusAudio's `WAVFile`),
/// FLAC (libFLAC), MP3 and other MPEG audio (libmpg123). Channels are averaged into one.
///
/// Memory stays bounded whatever the file says: the file is mapped, not loaded; its header's rate, channels
/// and stated length are judged against `AudioInputLimits` before a frame is decoded; and only the mono
/// samples are kept, in a `BoundedSamples` that stops the decoder at the limit whatever the header said.
public enum AudioFileReader {
    /// The longest audio read by default: ten minutes, far beyond a voice clip or a dictation.
    public static let defaultMaximumSeconds: Double = AudioInputLimits.file.maximumSeconds

    /// The file at `url` as mono samples at its own rate, at most `maximumSeconds` long.
    public static func readMono(
        contentsOf url: URL, maximumSeconds: Double = defaultMaximumSeconds
    ) throws -> (samples: [Float], sampleRate: Int) {
        try readMono(contentsOf: url, limits: AudioInputLimits(maximumSeconds: maximumSeconds))
    }

    /// The file at `url` as mono samples at its own rate, within `limits`.
    public static func readMono(
        contentsOf url: URL, limits: AudioInputLimits
    ) throws -> (samples: [Float], sampleRate: Int) {
        let data = try AudioFileBytes.mapped(url)
        return try decodeMono(data, path: url.path, limits: limits)
    }

    /// The bytes of a WAV, FLAC or MP3 file as mono samples, at most `maximumSeconds` long; `path` only
    /// names them in errors.
    public static func decodeMono(
        _ data: Data, path: String = "<memory>", maximumSeconds: Double = defaultMaximumSeconds
    ) throws -> (samples: [Float], sampleRate: Int) {
        try decodeMono(data, path: path, limits: AudioInputLimits(maximumSeconds: maximumSeconds))
    }

    /// The bytes of a WAV, FLAC or MP3 file as mono samples within `limits`; `path` only names them in errors.
    public static func decodeMono(
        _ data: Data, path: String = "<memory>", limits: AudioInputLimits
    ) throws -> (samples: [Float], sampleRate: Int) {
        try data.withUnsafeBytes { bytes in
            guard !bytes.isEmpty else { throw AudioFileError.cannotRead(path: path, reason: "it is empty") }
            switch AudioFileKind(sniffing: bytes) {
            case .wav:
                return try WAVFile.decodeMono(bytes, path: path, limits: limits)
            case .flac:
                return try FLACFileDecoder(bytes, path: path, limits: limits).decode()
            case .mpeg:
                return try MPEGFileDecoder.decode(bytes, path: path, limits: limits)
            case nil:
                throw AudioCodecError.unrecognised(path: path, start: describeStart(bytes))
            }
        }
    }

    /// The first bytes as a reader can recognise them: text when they are printable, hex otherwise.
    static func describeStart(_ bytes: UnsafeRawBufferPointer) -> String {
        let head = Array(bytes.prefix(4))
        if head.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "'" + String(decoding: head, as: UTF8.self) + "'"
        }
        return "bytes " + head.map { String(format: "%02X", $0) }.joined(separator: " ")
    }
}
