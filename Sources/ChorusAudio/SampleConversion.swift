/// Conversions between sample layouts and encodings.
public enum SampleConversion {
    /// Averages interleaved frames of `channels` into one channel; a trailing partial frame is dropped.
    public static func mixdown(_ interleaved: [Float], channels: Int) -> [Float] {
        precondition(channels > 0, "channels must be positive")
        if channels == 1 { return interleaved }
        let frames = interleaved.count / channels
        let scale = 1 / Float(channels)
        return [Float](unsafeUninitializedCapacity: frames) { out, initialized in
            interleaved.withUnsafeBufferPointer { input in
                for frame in 0..<frames {
                    var sum: Float = 0
                    let base = frame * channels
                    for channel in 0..<channels { sum += input[base + channel] }
                    out[frame] = sum * scale
                }
            }
            initialized = frames
        }
    }

    /// One channel of interleaved frames.
    public static func channel(_ index: Int, of interleaved: [Float], channels: Int) -> [Float] {
        precondition(channels > 0 && index >= 0 && index < channels, "channel \(index) of \(channels)")
        let frames = interleaved.count / channels
        return (0..<frames).map { interleaved[$0 * channels + index] }
    }

    /// Splits interleaved frames into one array per channel.
    public static func deinterleave(_ interleaved: [Float], channels: Int) -> [[Float]] {
        (0..<channels).map { channel($0, of: interleaved, channels: channels) }
    }

    /// Interleaves equally long channels into frames.
    public static func interleave(_ channels: [[Float]]) -> [Float] {
        guard let frames = channels.first?.count else { return [] }
        precondition(channels.allSatisfy { $0.count == frames }, "channels differ in length")
        var out = [Float](repeating: 0, count: frames * channels.count)
        for (index, samples) in channels.enumerated() {
            for frame in 0..<frames { out[frame * channels.count + index] = samples[frame] }
        }
        return out
    }

    /// 16-bit PCM to Float in [-1, 1): divides by 32768, the convention of numpy, torchaudio and soundfile.
    public static func floats(fromPCM16 samples: [Int16]) -> [Float] {
        samples.map { Float($0) / 32768 }
    }

    /// Float to 16-bit PCM, clipped to [-1, 1] and scaled by 32767 (see `Int16(pcm16:)`).
    public static func pcm16(from samples: [Float]) -> [Int16] {
        samples.map { Int16(pcm16: $0) }
    }
}
