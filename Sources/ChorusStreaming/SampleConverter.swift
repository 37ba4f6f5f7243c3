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
            resamplers[channel].process(channels == 1 ? samples : Self.channel(channel, of: samples, channels: channels))
        }
        return Self.interleave(outputs)
    }

    /// What the resamplers still hold back (their filters' tails) at the end of the stream.
    mutating func finish() -> [Float] {
        guard !resamplers.isEmpty else { return [] }
        return Self.interleave((0..<resamplers.count).map { resamplers[$0].finish() })
    }

    private static func channel(_ channel: Int, of samples: [Float], channels: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    private static func interleave(_ channels: [[Float]]) -> [Float] {
        guard channels.count > 1 else { return channels.first ?? [] }
        let frames = channels.map(\.count).min() ?? 0
        var interleaved = [Float](repeating: 0, count: frames * channels.count)
        for (index, channel) in channels.enumerated() {
            for frame in 0..<frames { interleaved[frame * channels.count + index] = channel[frame] }
        }
        return interleaved
    }

    /// Samples of `bytes` as floats in [-1, 1], interleaved as they came.
    func decode(_ bytes: [UInt8]) -> [Float] {
        switch source.encoding {
        case .int16:
            return [Float](unsafeUninitializedCapacity: bytes.count / 2) { buffer, count in
                for index in 0..<bytes.count / 2 {
                    let bits = UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8
                    buffer[index] = Float(Int16(bitPattern: bits)) / 32768
                }
                count = bytes.count / 2
            }
        case .float32:
            return [Float](unsafeUninitializedCapacity: bytes.count / 4) { buffer, count in
                for index in 0..<bytes.count / 4 {
                    let bits = UInt32(bytes[4 * index]) | UInt32(bytes[4 * index + 1]) << 8
                        | UInt32(bytes[4 * index + 2]) << 16 | UInt32(bytes[4 * index + 3]) << 24
                    buffer[index] = Float(bitPattern: bits)
                }
                count = bytes.count / 4
            }
        }
    }

    /// Same channel count: unchanged; otherwise each frame is averaged to mono and copied to every sink channel.
    func mapChannels(_ samples: [Float]) -> [Float] {
        let from = source.channels, to = target.channels
        guard from != to else { return samples }
        let frames = samples.count / from
        var mapped = [Float](repeating: 0, count: frames * to)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<from { sum += samples[frame * from + channel] }
            let mono = sum / Float(from)
            for channel in 0..<to { mapped[frame * to + channel] = mono }
        }
        return mapped
    }
}
