import ChorusAudio
import Foundation

/// Turns an engine's float chunks into the bytes of one file or response, chunk by chunk: the WAV header
/// first (for wav), then 16-bit samples, resampled for pcm when asked; MP3, FLAC, Ogg Opus pages or AAC's
/// ADTS frames as each is complete.
///
/// The header goes out before the length is known: WAV declares open-ended sizes and FLAC an unset length and
/// MD5, which readers accept of a stream. Where the output can go back (a file, a response sent whole),
/// `completedHeader` gives the bytes that state the real length, to write over the start once finished.
public struct AudioStreamEncoder: Sendable {
    /// The encoding of the bytes.
    public let encoding: AudioEncoding
    /// The rate of the encoded audio: the input's, `pcmRate` for pcm, the MPEG rate LAME chose for mp3, 48 kHz
    /// for opus (what its decoders give), or the ADTS rate for aac.
    public let outputRate: Int
    private var resampler: StreamingResampler?
    private var headerSent = false
    private var mp3: MP3StreamEncoder?
    private var flac: FLACStreamEncoder?
    private var opus: OpusStreamEncoder?
    private var aac: AACStreamEncoder?
    /// Sample bytes of WAV written so far, for the completed header.
    private var wavDataBytes = 0

    /// - Parameters:
    ///   - sampleRate: the rate of the samples given to `encode`.
    ///   - pcmRate: the rate of `pcm` output (the input's unless given); other encodings ignore it.
    public init(encoding: AudioEncoding, sampleRate: Int, pcmRate: Int? = nil) throws {
        self.encoding = encoding
        switch encoding {
        case .wav:
            outputRate = sampleRate
        case .pcm:
            outputRate = pcmRate ?? sampleRate
            if sampleRate != outputRate {
                resampler = try StreamingResampler(inputRate: sampleRate, outputRate: outputRate)
            }
        case .mp3:
            let encoder = try MP3StreamEncoder(sampleRate: sampleRate)
            mp3 = encoder
            outputRate = encoder.outputRate
        case .flac:
            flac = try FLACStreamEncoder(sampleRate: sampleRate)
            outputRate = sampleRate
        case .opus:
            opus = try OpusStreamEncoder(sampleRate: sampleRate)
            outputRate = 48_000
        case .aac:
            let encoder = try AACStreamEncoder(sampleRate: sampleRate)
            aac = encoder
            outputRate = encoder.outputRate
        }
    }

    /// The bytes for the next chunk of samples (the header before the first).
    public mutating func encode(_ samples: [Float]) throws -> Data {
        if let mp3 { return try mp3.encode(samples) }
        if let flac { return try flac.encode(samples) }
        if let opus { return try opus.encode(samples) }
        if let aac { return try aac.encode(samples) }
        var data = Data()
        if encoding == .wav && !headerSent {
            data = try WAVWriter.header(sampleRate: outputRate, channels: 1, format: .pcm16, dataBytes: Int(UInt32.max))
        }
        headerSent = true
        let out = resampler != nil ? resampler!.process(samples) : samples
        data.append(contentsOf: WAVWriter.encodeSamples(out, format: .pcm16))
        wavDataBytes += 2 * out.count
        return data
    }

    /// Once `finish()` has run: the bytes to write at `offset` of the output so its header states the real
    /// length (WAV's whole header; FLAC's STREAMINFO with total samples and MD5); nil for the others, whose
    /// bytes carry no length to complete (Ogg's pages end the stream themselves), and before `finish()`.
    public func completedHeader() throws -> (offset: Int, bytes: Data)? {
        switch encoding {
        case .wav:
            guard headerSent else { return nil }
            guard wavDataBytes <= Int(UInt32.max) - 36 else { return nil }
            return (0, try WAVWriter.header(sampleRate: outputRate, channels: 1, format: .pcm16, dataBytes: wavDataBytes))
        case .flac:
            return flac?.completedStreamInfo.map { (FLACStreamEncoder.streamInfoOffset, $0) }
        case .pcm, .mp3, .opus, .aac:
            return nil
        }
    }

    /// What is left when the input is done: the encoder's last frames, the resampler's tail (and a
    /// WAV header if nothing came).
    public mutating func finish() throws -> Data {
        if let mp3 { return try mp3.finish() }
        if let flac { return try flac.finish() }
        if let opus { return try opus.finish() }
        if let aac { return try aac.finish() }
        var data = try encode([])
        if resampler != nil {
            let tail = resampler!.finish()
            data.append(contentsOf: WAVWriter.encodeSamples(tail, format: .pcm16))
            wavDataBytes += 2 * tail.count
        }
        return data
    }
}
