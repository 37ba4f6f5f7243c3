import Foundation

/// Errors reading, writing and converting audio: each says what failed, where, and what to do.
public enum AudioFileError: Error, Equatable, CustomStringConvertible, Sendable {
    case cannotCreate(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    case invalidSampleRate(Int)
    case invalidChannelCount(Int)
    /// The file could not be opened or read at all.
    case cannotRead(path: String, reason: String)
    /// The bytes are not a RIFF/RF64 WAVE file, or a header field is impossible.
    case notWAV(path: String, reason: String)
    /// A WAVE file in an encoding Chorus does not decode (for example ADPCM).
    case unsupportedEncoding(path: String, formatTag: UInt16, bitsPerSample: Int)
    /// The file ends before the size its header declares.
    case truncated(path: String, expectedBytes: Int, availableBytes: Int)
    /// The streaming writer was used after `close()`.
    case writerClosed(path: String)
    /// The sample count does not divide into whole frames of `channels`.
    case partialFrame(sampleCount: Int, channels: Int)
    /// The file holds more audio than a reader takes; `seconds` is nil when only "more than the limit" is known.
    case tooLong(path: String, seconds: Double?, limit: Double)
    /// The header states a rate outside what the reader takes.
    case sampleRateOutside(path: String, rate: Int, accepted: ClosedRange<Int>)
    /// The header states more channels than the reader takes.
    case tooManyChannels(path: String, channels: Int, limit: Int)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason):
            "Cannot create \(path): \(reason). Check that the folder exists and is writable."
        case .writeFailed(let path, let reason):
            "Writing \(path) failed: \(reason); no partial file was left."
        case .invalidSampleRate(let rate):
            "Sample rate \(rate) Hz is not supported; give a rate from \(WAVFile.sampleRates.lowerBound) to "
                + "\(WAVFile.sampleRates.upperBound) Hz."
        case .invalidChannelCount(let count):
            "Channel count \(count) is invalid; it must be 1 or more."
        case .cannotRead(let path, let reason):
            "Cannot read \(path): \(reason). Check the path and its permissions."
        case .notWAV(let path, let reason):
            "\(path) is not a usable WAV file: \(reason). Convert it to WAV (PCM or float) first."
        case .unsupportedEncoding(let path, let tag, let bits):
            "\(path) uses WAVE format tag 0x\(String(tag, radix: 16)) with \(bits) bits per sample, which Chorus "
                + "does not decode; convert it to PCM 8/16/24/32-bit or float 32/64-bit."
        case .truncated(let path, let expected, let available):
            "\(path) is truncated: its header declares \(expected) bytes of audio but only \(available) follow. "
                + "Re-copy or re-record the file."
        case .writerClosed(let path):
            "The WAV stream for \(path) is already closed; open a new writer to write more audio."
        case .partialFrame(let count, let channels):
            "\(count) samples do not form whole frames of \(channels) channels; pass interleaved frames."
        case .tooLong(let path, let seconds, let limit):
            "\(path) holds \(seconds.map { "\(Int($0.rounded())) s" } ?? "more than \(Int(limit)) s") of audio; "
                + "Chorus reads at most \(Int(limit)) s from one file, so cut it shorter."
        case .sampleRateOutside(let path, let rate, let accepted):
            "\(path) is at \(rate) Hz; Chorus reads audio at \(accepted.lowerBound)-\(accepted.upperBound) Hz, "
                + "so resample it (for example to 48000 Hz)."
        case .tooManyChannels(let path, let channels, let limit):
            "\(path) has \(channels) channels; Chorus reads at most \(limit), so mix it down (for example to mono)."
        }
    }
}

extension AudioFileError {
    /// A short reason for a failed file operation: "no such file or folder", "permission denied",
    /// and otherwise Foundation's description without its closing full stop (our messages add one).
    public static func reason(for error: any Error) -> String {
        // The operating system's own code says most, wherever Foundation put it: a POSIX error, an
        // NSError of the POSIX domain, or the underlying error of a Cocoa one ("error 512").
        let bridged = error as NSError
        let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError
        for candidate in [bridged, underlying].compactMap({ $0 }) where candidate.domain == NSPOSIXErrorDomain {
            return reason(errno: Int32(candidate.code))
        }
        if let posix = error as? POSIXError { return reason(errno: posix.code.rawValue) }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileWriteOutOfSpace: return "the disk is full"
            case .fileWriteVolumeReadOnly: return "the disk is read-only"
            default: break
            }
        }
        var text = error.localizedDescription
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Why a file could not be created: `reason(errno:)`, except that a missing path means the folder.
    public static func creationReason(errno code: Int32) -> String {
        code == ENOENT ? "no such folder" : reason(errno: code)
    }

    /// `creationReason(errno:)` for the error a create threw.
    public static func creationReason(for error: any Error) -> String {
        if let posix = error as? POSIXError { return creationReason(errno: posix.code.rawValue) }
        return reason(for: error)
    }

    /// A short reason for an operating-system error number, worded for the common cases.
    public static func reason(errno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "the disk is full"
        case EPIPE: "the program reading the output closed it (broken pipe)"
        case EISDIR: "it is a folder"
        case EACCES, EPERM: "permission denied"
        case EROFS: "the disk is read-only"
        case ENOENT: "no such file or folder"
        default: String(cString: strerror(code))
        }
    }
}
