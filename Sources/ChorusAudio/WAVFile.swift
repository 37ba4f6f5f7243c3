import Foundation

/// How the samples of a WAV file are stored on disk.
public enum WAVEncoding: Sendable, Equatable {
    /// Signed integer PCM (unsigned for 8-bit) in a container of `bits` bits.
    case integer(bits: Int)
    /// IEEE float, 32 or 64 bits.
    case float(bits: Int)

    var bytesPerSample: Int {
        switch self {
        case .integer(let bits), .float(let bits): (bits + 7) / 8
        }
    }
}

/// A decoded WAV file: interleaved Float samples in [-1, 1) for integer encodings, as stored for float ones.
///
/// Reads RIFF and RF64 WAVE files with PCM 8/16/24/32-bit, float 32/64-bit, any channel count,
/// `WAVE_FORMAT_EXTENSIBLE`, extra chunks before or after the data, odd-size chunk padding, and the
/// data size 0 or 0xFFFFFFFF that streaming writers leave behind (the audio then runs to the end of the file).
public struct WAVFile: Sendable, Equatable {
    /// Interleaved samples, `frameCount * channels` of them.
    public var samples: [Float]
    /// Channels per frame.
    public var channels: Int
    /// Frames per second.
    public var sampleRate: Int
    /// The encoding the file used on disk.
    public var encoding: WAVEncoding

    /// Sample rates a real recording has, which Chorus reads, writes and resamples. Outside them a header is
    /// corrupt or hostile: resampling 32 KB declared at 4 GHz to 16 kHz would design a filter of millions of
    /// taps, and 1 Hz to 24 kHz would multiply the data 24,000 times.
    public static let sampleRates = 1_000...768_000

    /// Creates a file value from interleaved samples.
    public init(samples: [Float], channels: Int, sampleRate: Int, encoding: WAVEncoding = .float(bits: 32)) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
        self.encoding = encoding
    }

    /// Frames (one sample per channel) in the file.
    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// Duration in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The samples of one channel.
    public func channel(_ index: Int) -> [Float] {
        precondition(index >= 0 && index < channels, "channel \(index) of \(channels)")
        return SampleConversion.channel(index, of: samples, channels: channels)
    }

    /// All channels averaged into one.
    public var mono: [Float] { SampleConversion.mixdown(samples, channels: channels) }

    /// Reads and decodes the WAV file at `url`.
    public static func read(contentsOf url: URL) throws -> WAVFile {
        let data = try AudioFileBytes.mapped(url, options: .mappedIfSafe)
        return try decode(data, path: url.path)
    }

    /// A WAV file's format and length as its header declares them.
    public struct Header: Sendable, Equatable {
        public var channels: Int
        public var sampleRate: Int
        public var frameCount: Int
        /// Seconds of audio.
        public var duration: Double { Double(frameCount) / Double(sampleRate) }
    }

    /// The header of the WAV file at `url`, read without decoding a sample (the file is mapped, not loaded),
    /// so a caller can refuse a clip by its length before paying for its samples.
    public static func header(contentsOf url: URL) throws -> Header {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw AudioFileError.cannotRead(path: url.path, reason: AudioFileError.reason(for: error))
        }
        return try header(of: data, path: url.path)
    }

    /// The header of the WAV file in `data`, read without decoding a sample; `path` only names it in errors.
    public static func header(of data: Data, path: String = "<memory>") throws -> Header {
        let layout = try data.withUnsafeBytes { try WAVLayout(parsing: $0, path: path) }
        return Header(channels: layout.channels, sampleRate: layout.sampleRate, frameCount: layout.frameCount)
    }

    /// Reads `url` and returns its channels averaged into mono, with the sample rate: judged by its header
    /// against `limits` before a sample is decoded (the file is mapped, not loaded).
    public static func readMono(
        contentsOf url: URL, limits: AudioInputLimits = .file
    ) throws -> (samples: [Float], sampleRate: Int) {
        let data = try AudioFileBytes.mapped(url)
        return try data.withUnsafeBytes { try decodeMono($0, path: url.path, limits: limits) }
    }

    /// The bytes of a WAV file with its channels averaged into mono, at most `maximumSeconds` long.
    public static func decodeMono(
        _ bytes: UnsafeRawBufferPointer, path: String = "<memory>", maximumSeconds: Double
    ) throws -> (samples: [Float], sampleRate: Int) {
        try decodeMono(bytes, path: path, limits: AudioInputLimits(maximumSeconds: maximumSeconds))
    }

    /// The bytes of a WAV file with its channels averaged into mono. A rate, channel count or length outside
    /// `limits` is refused from the header before a sample is decoded, and frames are decoded a block at a
    /// time, so memory holds the mono samples only, whatever the channel count.
    public static func decodeMono(
        _ bytes: UnsafeRawBufferPointer, path: String = "<memory>", limits: AudioInputLimits
    ) throws -> (samples: [Float], sampleRate: Int) {
        let layout = try WAVLayout(parsing: bytes, path: path)
        try limits.check(sampleRate: layout.sampleRate, channels: layout.channels, frames: layout.frameCount, path: path)
        let frameBytes = layout.channels * layout.encoding.bytesPerSample
        let framesPerBlock = max(1, 65_536 / layout.channels)
        var mono = BoundedSamples(bound: limits.samples(at: layout.sampleRate), expected: layout.frameCount)
        var frame = 0
        while frame < layout.frameCount {
            let count = min(framesPerBlock, layout.frameCount - frame)
            let start = layout.dataOffset + frame * frameBytes
            let block = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count * frameBytes)])
            let interleaved = SampleConversion.floats(decoding: block, encoding: layout.encoding,
                                                      count: count * layout.channels)
            guard mono.append(contentsOf: SampleConversion.mixdown(interleaved, channels: layout.channels)) else {
                throw AudioFileError.tooLong(path: path, seconds: nil, limit: limits.seconds(at: layout.sampleRate))
            }
            frame += count
        }
        return (mono.samples, layout.sampleRate)
    }

    /// Decodes the bytes of a WAV file; `path` only names the source in errors.
    public static func decode(_ data: Data, path: String = "<memory>") throws -> WAVFile {
        try data.withUnsafeBytes { raw in try decode(raw, path: path) }
    }

    /// Decodes the bytes of a WAV file; `path` only names the source in errors.
    public static func decode(_ bytes: UnsafeRawBufferPointer, path: String = "<memory>") throws -> WAVFile {
        let layout = try WAVLayout(parsing: bytes, path: path)
        let body = UnsafeRawBufferPointer(rebasing: bytes[layout.dataOffset..<(layout.dataOffset + layout.dataBytes)])
        let samples = SampleConversion.floats(decoding: body, encoding: layout.encoding,
                                               count: layout.frameCount * layout.channels)
        return WAVFile(samples: samples, channels: layout.channels, sampleRate: layout.sampleRate,
                       encoding: layout.encoding)
    }
}

/// Where the audio sits in a WAV file and how it is encoded, found by walking the RIFF chunks.
struct WAVLayout {
    var channels = 0
    var sampleRate = 0
    var encoding = WAVEncoding.integer(bits: 16)
    var dataOffset = 0
    var dataBytes = 0
    var frameCount = 0

    /// Channel counts beyond this are treated as a corrupt header rather than a real file.
    static let maximumChannels = 4096

    init(parsing bytes: UnsafeRawBufferPointer, path: String) throws {
        func fail(_ reason: String) -> AudioFileError { .notWAV(path: path, reason: reason) }
        func tag(at offset: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]), as: UTF8.self)
        }
        func u16(_ offset: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }

        guard bytes.count >= 12 else { throw fail("only \(bytes.count) bytes, shorter than a RIFF header") }
        let container = tag(at: 0)
        guard container == "RIFF" || container == "RF64" else { throw fail("it starts with no RIFF or RF64 tag") }
        guard tag(at: 8) == "WAVE" else { throw fail("the RIFF form is not WAVE") }

        var formatFound = false
        var rf64DataBytes: UInt64?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = tag(at: offset)
            let declared = u32(offset + 4)
            let bodyStart = offset + 8
            let available = bytes.count - bodyStart
            switch id {
            case "fmt ":
                guard declared >= 16, available >= 16 else { throw fail("the fmt chunk is \(declared) bytes, under 16") }
                try readFormat(at: bodyStart, size: min(Int(declared), available), u16: u16, u32: u32, path: path)
                formatFound = true
            case "ds64":
                guard declared >= 16, available >= 16 else { throw fail("the ds64 chunk is too short") }
                rf64DataBytes = u64(bodyStart + 8)
            case "data":
                guard formatFound else { throw fail("the data chunk comes before any fmt chunk") }
                let size: Int
                if declared == UInt32.max, let large = rf64DataBytes {
                    size = large > UInt64(Int.max) ? Int.max : Int(large)
                } else if declared == 0 || declared == UInt32.max {
                    size = available  // a streaming writer never came back to fill in the size
                } else {
                    size = Int(declared)
                }
                if size > available {
                    throw AudioFileError.truncated(path: path, expectedBytes: size, availableBytes: available)
                }
                let frameBytes = channels * encoding.bytesPerSample
                frameCount = size / frameBytes
                dataOffset = bodyStart
                dataBytes = frameCount * frameBytes
                return
            default:
                break
            }
            // Chunks are word aligned: an odd-sized chunk is followed by one pad byte.
            let advance = Int(declared) + Int(declared & 1)
            guard advance <= available else {
                throw fail("the \(id.debugDescription) chunk declares \(declared) bytes but only \(available) remain")
            }
            offset = bodyStart + advance
        }
        throw fail(formatFound ? "it has no data chunk" : "it has no fmt chunk")
    }

    private mutating func readFormat(
        at start: Int, size: Int, u16: (Int) -> UInt16, u32: (Int) -> UInt32, path: String
    ) throws {
        var formatTag = u16(start)
        channels = Int(u16(start + 2))
        sampleRate = Int(u32(start + 4))
        let bits = Int(u16(start + 14))
        // WAVE_FORMAT_EXTENSIBLE names the real encoding in the first two bytes of its sub-format GUID.
        if formatTag == 0xFFFE {
            guard size >= 40 else {
                throw AudioFileError.notWAV(path: path, reason: "the extensible fmt chunk is \(size) bytes, under 40")
            }
            formatTag = u16(start + 24)
        }
        guard channels > 0, channels <= Self.maximumChannels else {
            throw AudioFileError.notWAV(path: path, reason: "it declares \(channels) channels")
        }
        guard WAVFile.sampleRates.contains(sampleRate) else {
            throw AudioFileError.notWAV(path: path, reason: "it declares a sample rate of \(sampleRate) Hz, outside "
                                        + "\(WAVFile.sampleRates.lowerBound)-\(WAVFile.sampleRates.upperBound) Hz")
        }
        switch (formatTag, bits) {
        case (1, 1...64) where bits <= 32 || bits % 8 == 0:
            encoding = .integer(bits: bits)
        case (3, 32), (3, 64):
            encoding = .float(bits: bits)
        default:
            throw AudioFileError.unsupportedEncoding(path: path, formatTag: formatTag, bitsPerSample: bits)
        }
    }
}
