import ChorusAudio
import Foundation

/// The `response_format` values this server streams, and the ones OpenAI names that it does not.
public enum AudioResponseFormat: String, Sendable, CaseIterable {
    /// A WAV stream at the engine's rate: a header with open-ended sizes, then 16-bit samples.
    case wav
    /// Bare signed 16-bit little-endian mono at 24 kHz, as OpenAI's `pcm` is; other rates are resampled.
    case pcm
    /// MP3 at the engine's rate, 64 kbit/s constant, mono (LAME, Debian's libmp3lame).
    case mp3
    /// FLAC at the engine's rate, 16-bit mono (libFLAC, Debian's libflac).
    case flac

    /// OpenAI's rate for `pcm`, which clients assume.
    public static let pcmSampleRate = 24_000

    /// Formats OpenAI offers that need an encoder this server does not link.
    static let unserved: Set<String> = ["opus", "aac"]

    /// The format `name` asks for (wav when nil), or a 400 naming the served ones.
    static func parse(_ name: String?) throws -> AudioResponseFormat {
        guard let name else { return .wav }
        if let format = AudioResponseFormat(rawValue: name.lowercased()) { return format }
        let names = allCases.map(\.rawValue)
        let served = names.dropLast().joined(separator: ", ") + " or " + names.last!
        if unserved.contains(name.lowercased()) {
            throw APIError.invalid("This server streams \(served), not \(name); ask for response_format \(served).",
                                   param: "response_format", code: "unsupported_format")
        }
        throw APIError.invalid("Unknown response_format '\(name)'; use \(served).", param: "response_format")
    }

    var contentType: String {
        switch self {
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        case .mp3: "audio/mpeg"
        case .flac: "audio/flac"
        }
    }
}

/// Turns an engine's float chunks into the bytes of one response: the WAV header first (for wav),
/// then 16-bit samples, resampled to 24 kHz for pcm; MP3 or FLAC frames as each is complete.
struct AudioStreamEncoder: Sendable {
    let format: AudioResponseFormat
    let outputRate: Int
    private var resampler: StreamingResampler?
    private var headerSent = false
    private var mp3: MP3StreamEncoder?
    private var flac: FLACStreamEncoder?

    /// - Parameter pcmRate: the rate of `pcm` output (OpenAI's 24 kHz unless given).
    init(format: AudioResponseFormat, engineRate: Int, pcmRate: Int = AudioResponseFormat.pcmSampleRate) throws {
        self.format = format
        switch format {
        case .wav:
            outputRate = engineRate
        case .pcm:
            outputRate = pcmRate
            if engineRate != outputRate {
                resampler = try StreamingResampler(inputRate: engineRate, outputRate: outputRate)
            }
        case .mp3:
            let encoder = try MP3StreamEncoder(sampleRate: engineRate)
            mp3 = encoder
            outputRate = encoder.outputRate
        case .flac:
            flac = try FLACStreamEncoder(sampleRate: engineRate)
            outputRate = engineRate
        }
    }

    /// The bytes for the next chunk of samples (the header before the first).
    mutating func encode(_ samples: [Float]) throws -> Data {
        if let mp3 { return try mp3.encode(samples) }
        if let flac { return try flac.encode(samples) }
        var data = Data()
        if format == .wav && !headerSent {
            data = try WAVWriter.header(sampleRate: outputRate, channels: 1, format: .pcm16, dataBytes: Int(UInt32.max))
        }
        headerSent = true
        let out = resampler != nil ? resampler!.process(samples) : samples
        data.append(contentsOf: WAVWriter.encodeSamples(out, format: .pcm16))
        return data
    }

    /// What is left when the engine is done: the resampler's tail (and a header if nothing came).
    mutating func finish() throws -> Data {
        if let mp3 { return try mp3.finish() }
        if let flac { return try flac.finish() }
        var data = try encode([])
        if resampler != nil {
            data.append(contentsOf: WAVWriter.encodeSamples(resampler!.finish(), format: .pcm16))
        }
        return data
    }
}
