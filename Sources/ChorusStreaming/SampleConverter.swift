import ChorusAudio

/// Turns whole frames of a provider's bytes into the interleaved Float32 frames a sink takes:
/// decodes the samples, maps the channels, and changes the rate when the two differ.
struct SampleConverter {
    let source: AudioFormat
    let target: SinkFormat
    /// One per sink channel when the rates differ, none when they match.
    private var resamplers: [StreamingResampler] = []

    init(source: AudioFormat, target: SinkFormat) throws {
        try source.validate()
        guard target.sampleRate > 0, target.channels > 0 else {
            throw StreamingError.invalidFormat(
                AudioFormat(sampleRate: target.sampleRate, channels: target.channels, encoding: .float32),
                reason: "the sink asked for a rate or channel count that is not positive")
        }
        self.source = source
        self.target = target
        if source.sampleRate != target.sampleRate {
            let resampler = try StreamingResampler(inputRate: source.sampleRate, outputRate: target.sampleRate)
            resamplers = Array(repeating: resampler, count: target.channels)
        }
    }

    /// The sink's samples for `frames`, which must hold whole frames of the source format.
    mutating func convert(_ frames: [UInt8]) -> [Float] {
        let samples = mapChannels(decode(frames))
        guard !resamplers.isEmpty else { return samples }
        let channels = target.channels
        let outputs = (0..<channels).map { channel in
            resamplers[channel].process(channels == 1 ? samples : SampleConversion.channel(channel, of: samples, channels: channels))
        }
        return SampleConversion.interleave(outputs)
    }

    /// What the resamplers still hold back (their filters' tails) at the end of the stream.
    mutating func finish() -> [Float] {
        guard !resamplers.isEmpty else { return [] }
        return SampleConversion.interleave((0..<resamplers.count).map { resamplers[$0].finish() })
    }

    /// Samples of `bytes` as floats in [-1, 1], interleaved as they came.
    func decode(_ bytes: [UInt8]) -> [Float] {
        let encoding: WAVEncoding = source.encoding == .int16 ? .integer(bits: 16) : .float(bits: 32)
        return bytes.withUnsafeBytes {
            SampleConversion.floats(decoding: $0, encoding: encoding, count: bytes.count / source.encoding.bytesPerSample)
        }
    }

    /// Same channel count: unchanged; otherwise each frame is averaged to mono and copied to every sink channel.
    func mapChannels(_ samples: [Float]) -> [Float] {
        SampleConversion.remix(samples, from: source.channels, to: target.channels)
    }
}
