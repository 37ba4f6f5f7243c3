import ChorusDSP

/// Features as an acoustic model reads them: `channels` rows of `frames` values each,
/// channel-major as NeMo lays out one utterance ([80, T]).
public struct AcousticFeatures: Sendable, Equatable {
    /// Feature channels (mel bins), 80 for FastConformer.
    public var channels: Int
    /// Frames, one per hop (10 ms at 16 kHz).
    public var frames: Int
    /// `channels * frames` values, channel after channel.
    public var values: [Float]

    public init(channels: Int, frames: Int, values: [Float]) {
        precondition(values.count == channels * frames, "\(values.count) values for \(channels) x \(frames) features")
        self.channels = channels
        self.frames = frames
        self.values = values
    }

    /// The features with every channel cut or padded with zeros to `length` frames.
    ///
    /// Zero is NeMo's pad value: frames past the valid length of normalised features are zero.
    public func padded(to length: Int) -> AcousticFeatures {
        guard length != frames else { return self }
        var result = [Float](repeating: 0, count: channels * length)
        let kept = min(length, frames)
        values.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { destination in
                for channel in 0..<channels {
                    (destination.baseAddress! + channel * length)
                        .update(from: source.baseAddress! + channel * frames, count: kept)
                }
            }
        }
        return AcousticFeatures(channels: channels, frames: length, values: result)
    }

    /// Frames `range` of every channel.
    public func frames(_ range: Range<Int>) -> AcousticFeatures {
        precondition(range.lowerBound >= 0 && range.upperBound <= frames, "frames \(range) of \(frames)")
        var result: [Float] = []
        result.reserveCapacity(channels * range.count)
        for channel in 0..<channels {
            result += values[(channel * frames + range.lowerBound)..<(channel * frames + range.upperBound)]
        }
        return AcousticFeatures(channels: channels, frames: range.count, values: result)
    }
}

extension AcousticFeatures {
    /// The NeMo filterbank features of `samples` (16 kHz), cut to the frames NeMo counts as valid.
    public init(_ extractor: NeMoFilterbank, samples: [Float]) {
        let matrix = extractor(samples)  // frames x mels
        let frames = min(extractor.validFrames(for: samples.count), matrix.rows)
        var values = [Float](repeating: 0, count: matrix.columns * frames)
        for frame in 0..<frames {
            for channel in 0..<matrix.columns {
                values[channel * frames + frame] = matrix.values[frame * matrix.columns + channel]
            }
        }
        self.init(channels: matrix.columns, frames: frames, values: values)
    }
}
