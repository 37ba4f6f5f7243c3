import Foundation

/// Audio bytes as they arrive on a stream (a pipe, a socket), to mono samples: a WAV stream (its header
/// read with `WAVFile`) or, without a RIFF header, raw 16-bit little-endian mono PCM at a given rate.
///
/// Memory stays bounded: the bytes before the data chunk are kept only up to `headerLimit`, and after it
/// only the part of a frame a block cut. The header's rate and channels (raw PCM's `rawRate`) are judged
/// against `limits` before a sample is decoded, and the samples given out are counted against its length.
public struct WAVStreamDecoder: Sendable {
    /// Input that cannot be read as audio, named for the person who piped it in.
    public enum Failure: Error, Equatable, CustomStringConvertible, Sendable {
        case noAudio(source: String)
        case compressed(source: String, format: String)
        case headerCut(source: String)
        case headerTooLarge(source: String, limit: Int)

        public var description: String {
            switch self {
            case .noAudio(let source):
                "No audio arrived on \(source): it ended before the first sample. Pipe in a WAV stream or raw 16-bit mono PCM."
            case .compressed(let source, let format):
                "The data on \(source) is \(format), which Chorus does not decode; convert it to WAV first, for example "
                    + "`ffmpeg -i input -f wav - | chorus transcribe --live -`."
            case .headerCut(let source):
                "The WAV stream on \(source) ended inside its header, before the data chunk; send the whole file."
            case .headerTooLarge(let source, let limit):
                "The WAV stream on \(source) has more than \(limit / 1024) KB before its data chunk; strip the metadata, "
                    + "for example with `sox input.wav output.wav`."
            }
        }
    }

    /// Bytes a WAV header (with the chunks before its audio) may take: far more than any metadata a
    /// recorder writes, and a bound on what a stream that never reaches its audio can hold.
    public static let headerLimit = 1 << 20

    /// The rate of raw PCM input (no RIFF header).
    public let rawRate: Int
    /// The input as messages name it ("standard input").
    public let source: String
    /// What the stream may be: `AudioInputLimits.stream` (any length) when read as it arrives.
    public let limits: AudioInputLimits
    /// Samples given out so far, counted against `limits`.
    private var delivered = 0
    private var pending = Data()
    /// The WAV header with its data size zeroed, so Audio decodes any run of whole frames after it.
    private var header: Data?
    /// Audio bytes the WAV header declares that are still to come; `nil` when open-ended (a stream).
    private var remaining: Int?
    private var frameBytes = 2
    private var decided = false
    /// The audio's rate, once known: the WAV header's, or `rawRate` for raw PCM.
    public private(set) var sampleRate: Int?

    public init(rawRate: Int, source: String, limits: AudioInputLimits = .stream) {
        self.rawRate = rawRate
        self.source = source
        self.limits = limits
    }

    /// The samples `bytes` complete; `final` flushes what is left.
    public mutating func samples(from bytes: Data, final: Bool) throws -> [Float] {
        pending += bytes
        if !decided {
            guard pending.count >= 4 || final else { return [] }
            let tag = String(decoding: pending.prefix(4), as: UTF8.self)
            if tag == "RIFF" || tag == "RF64" {
                guard try readHeader(final: final) else { return [] }
            } else if let format = Self.compressedFormats.first(where: { tag.hasPrefix($0.magic) })?.name {
                throw Failure.compressed(source: source, format: format)
            } else {
                try limits.check(sampleRate: rawRate, channels: 1, frames: nil, path: source)
                sampleRate = rawRate
            }
            decided = true
        }
        var usable = pending.count
        if let remaining { usable = min(usable, remaining) }
        let whole = usable - usable % frameBytes
        guard whole > 0 else { return [] }
        let body = pending.prefix(whole)
        pending = Data(pending.dropFirst(whole))
        if let remaining {
            self.remaining = remaining - whole
            // Chunks after the audio (metadata) are not samples.
            if remaining - whole < frameBytes { pending = Data() }
        }
        let frames = whole / frameBytes
        guard frames <= limits.samples(at: sampleRate ?? rawRate) - delivered else {
            throw AudioFileError.tooLong(path: source, seconds: nil, limit: limits.seconds(at: sampleRate ?? rawRate))
        }
        delivered += frames
        guard let header else {
            let pcm = body.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) } }
            return SampleConversion.floats(fromPCM16: pcm)
        }
        return try WAVFile.decode(header + body, path: source).mono
    }

    /// Containers of compressed audio people pipe in by mistake, by their first bytes.
    public static let compressedFormats = [(magic: "ID3", name: "MP3 audio"), (magic: "fLaC", name: "FLAC audio"),
                                    (magic: "OggS", name: "Ogg audio")]

    /// Finds the data chunk; true once the header is complete.
    private mutating func readHeader(final: Bool) throws -> Bool {
        let bytes = [UInt8](pending)
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
                var head = Data(bytes[..<(offset + 8)])
                head.replaceSubrange((offset + 4)..<(offset + 8), with: [0, 0, 0, 0])
                let format = try WAVFile.decode(head, path: source)
                let width: Int
                switch format.encoding {
                case .integer(let bits), .float(let bits): width = (bits + 7) / 8
                }
                header = head
                frameBytes = width * format.channels
                sampleRate = format.sampleRate
                // 0 and 0xFFFFFFFF are what streaming writers leave: the audio runs to the end.
                let isRF64 = bytes[0..<4].elementsEqual("RF64".utf8)
                remaining = size == 0 || size == 0xFFFF_FFFF || isRF64 ? nil : size
                try limits.check(sampleRate: format.sampleRate, channels: format.channels,
                                 frames: remaining.map { $0 / frameBytes }, path: source)
                pending = Data(bytes[(offset + 8)...])
                return true
            }
            offset += 8 + size + (size & 1)
        }
        if final { throw Failure.headerCut(source: source) }
        if bytes.count > Self.headerLimit { throw Failure.headerTooLarge(source: source, limit: Self.headerLimit) }
        return false
    }
}
