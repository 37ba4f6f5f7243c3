/// How PCM bytes are laid out: little-endian samples, channels interleaved frame by frame.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// The encoding of one sample.
    public enum SampleEncoding: String, Sendable, Hashable, CaseIterable {
        /// Signed 16-bit integers, full scale 32768.
        case int16
        /// IEEE 754 single precision in [-1, 1].
        case float32

        /// Bytes one sample takes.
        public var bytesPerSample: Int { self == .int16 ? 2 : 4 }
    }

    /// Frames per second.
    public var sampleRate: Int
    /// Samples per frame.
    public var channels: Int
    public var encoding: SampleEncoding

    public init(sampleRate: Int, channels: Int = 1, encoding: SampleEncoding) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.encoding = encoding
    }

    /// Bytes one frame (one sample of every channel) takes.
    public var bytesPerFrame: Int { channels * encoding.bytesPerSample }

    /// Throws `StreamingError.invalidFormat` unless the rate and channel count are usable.
    public func validate() throws {
        guard sampleRate > 0 else { throw StreamingError.invalidFormat(self, reason: "the sample rate must be positive") }
        guard channels > 0 else { throw StreamingError.invalidFormat(self, reason: "it needs at least one channel") }
    }

    public var description: String { "\(encoding.rawValue) \(sampleRate) Hz \(channels == 1 ? "mono" : "\(channels) channels")" }
}

/// What a sink is fed: interleaved Float32 frames at this rate and channel count.
public struct SinkFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Seconds that `samples` interleaved samples last.
    public func duration(ofSamples samples: Int) -> Double {
        Double(samples) / Double(channels * sampleRate)
    }

    /// Interleaved samples in `seconds` of audio, rounded down to whole frames.
    public func samples(in seconds: Double) -> Int {
        Int(seconds * Double(sampleRate)) * channels
    }

    public var description: String { "\(sampleRate) Hz \(channels == 1 ? "mono" : "\(channels) channels")" }
}
