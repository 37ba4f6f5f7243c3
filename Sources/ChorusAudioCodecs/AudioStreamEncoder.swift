import ChorusAudio
import Foundation

/// Turns an engine's float chunks into the bytes of one file or response, chunk by chunk: the WAV header
/// first (for wav), then 16-bit samples, resampled for pcm when asked; MP3 or FLAC frames as each is complete.
///
/// WAV written this way declares open-ended sizes (a stream cannot go back to fill them in), which every
/// reader Chorus knows accepts; a file that can be rewritten gets real sizes from `WAVWriter` or `WAVStreamWriter`.
public struct AudioStreamEncoder: Sendable {
    /// The encoding of the bytes.
    public let encoding: AudioEncoding
    /// The rate of the encoded audio: the input's, `pcmRate` for pcm, or the MPEG rate LAME chose for mp3.
    public let outputRate: Int
    private var resampler: StreamingResampler?
    private var headerSent = false
    private var mp3: MP3StreamEncoder?
    private var flac: FLACStreamEncoder?

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
        }
    }

    /// The bytes for the next chunk of samples (the header before the first).
    public mutating func encode(_ samples: [Float]) throws -> Data {
        if let mp3 { return try mp3.encode(samples) }
        if let flac { return try flac.encode(samples) }
        var data = Data()
        if encoding == .wav && !headerSent {
            data = try WAVWriter.header(sampleRate: outputRate, channels: 1, format: .pcm16, dataBytes: Int(UInt32.max))
        }
        headerSent = true
        let out = resampler != nil ? resampler!.process(samples) : samples
        data.append(contentsOf: WAVWriter.encodeSamples(out, format: .pcm16))
        return data
    }

    /// What is left when the input is done: the encoder's last frames, the resampler's tail (and a
    /// WAV header if nothing came).
    public mutating func finish() throws -> Data {
        if let mp3 { return try mp3.finish() }
        if let flac { return try flac.finish() }
        var data = try encode([])
        if resampler != nil {
            data.append(contentsOf: WAVWriter.encodeSamples(resampler!.finish(), format: .pcm16))
        }
        return data
    }
}
