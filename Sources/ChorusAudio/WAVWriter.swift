import ChorusFiles
import Foundation

/// Sample encodings Chorus writes to WAV files.
public enum WAVSampleFormat: Sendable, Equatable, CaseIterable {
    /// 16-bit signed integer PCM (format tag 1), what every player reads.
    case pcm16
    /// 32-bit IEEE float (format tag 3), lossless for model output.
    case float32

    /// Bits each sample takes on disk.
    public var bitsPerSample: Int { self == .pcm16 ? 16 : 32 }
    var formatTag: UInt16 { self == .pcm16 ? 1 : 3 }
}

/// Whole-file WAV output: the data goes to a temporary name beside the target and is renamed into
/// place only once complete, so a reader never sees a half-written file under the final name.
public enum WAVWriter {
    /// Writes interleaved `samples` (clipped to [-1, 1] for 16-bit) to `url`.
    public static func write(
        _ samples: [Float], sampleRate: Int, channels: Int = 1, format: WAVSampleFormat = .pcm16, to url: URL
    ) throws {
        let data = try encode(samples, sampleRate: sampleRate, channels: channels, format: format)
        try atomicallyWrite(data, to: url)
    }

    /// The bytes of a complete WAV file holding `samples`.
    public static func encode(
        _ samples: [Float], sampleRate: Int, channels: Int = 1, format: WAVSampleFormat = .pcm16
    ) throws -> Data {
        var data = try header(sampleRate: sampleRate, channels: channels, format: format,
                              dataBytes: samples.count * format.bitsPerSample / 8)
        data.append(contentsOf: encodeSamples(samples, format: format))
        return data
    }

    /// A 44-byte canonical header for `dataBytes` of sample data (`UInt32.max` style sizes are the caller's choice).
    public static func header(sampleRate: Int, channels: Int, format: WAVSampleFormat, dataBytes: Int) throws -> Data {
        guard sampleRate > 0, sampleRate <= Int(UInt32.max) else { throw AudioFileError.invalidSampleRate(sampleRate) }
        guard channels > 0, channels <= Int(UInt16.max) else { throw AudioFileError.invalidChannelCount(channels) }
        let bytesPerFrame = channels * format.bitsPerSample / 8
        var header = Data(capacity: 44)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        let clampedData = UInt32(clamping: dataBytes)
        header.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(clamping: Int(clampedData) + 36))
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(format.formatTag)
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * bytesPerFrame))
        append(UInt16(bytesPerFrame))
        append(UInt16(format.bitsPerSample))
        header.append(contentsOf: Array("data".utf8))
        append(clampedData)
        return header
    }

    /// Little-endian sample bytes for `samples` in `format`.
    public static func encodeSamples(_ samples: [Float], format: WAVSampleFormat) -> [UInt8] {
        switch format {
        case .pcm16:
            var bytes = [UInt8](repeating: 0, count: samples.count * 2)
            for (index, sample) in samples.enumerated() {
                let value = Int16(pcm16: sample)
                bytes[2 * index] = UInt8(truncatingIfNeeded: value)
                bytes[2 * index + 1] = UInt8(truncatingIfNeeded: value >> 8)
            }
            return bytes
        case .float32:
            var bytes = [UInt8](repeating: 0, count: samples.count * 4)
            for (index, sample) in samples.enumerated() {
                let bits = sample.bitPattern
                for byte in 0..<4 { bytes[4 * index + byte] = UInt8(truncatingIfNeeded: bits >> (8 * byte)) }
            }
            return bytes
        }
    }

    /// Writes `data` under a temporary name in the target's folder, then puts it in place over `url`
    /// (`StagedFile`: a device is written directly, a replaced file keeps its mode, owner and links).
    public static func atomicallyWrite(_ data: Data, to url: URL, policy: OutputTarget.Policy = OutputTarget.Policy()) throws {
        do {
            try StagedFile.write(to: url, policy: policy) { staged in
                let handle: FileHandle
                do {
                    handle = try staged.create()
                } catch {
                    throw AudioFileError.cannotCreate(path: url.path, reason: AudioFileError.creationReason(for: error))
                }
                try handle.write(contentsOf: data)
                try handle.close()
            }
        } catch let error as AudioFileError {
            throw error
        } catch let error as OutputError {
            throw error
        } catch {
            throw AudioFileError.writeFailed(path: url.path, reason: AudioFileError.reason(for: error))
        }
    }
}

extension Int16 {
    /// The 16-bit PCM value of a float sample, clipped to [-1, 1] and scaled by 32767.
    public init(pcm16 sample: Float) {
        let clipped = Swift.max(-1, Swift.min(1, sample.isNaN ? 0 : sample))
        self = Int16((clipped * 32767).rounded())
    }
}
