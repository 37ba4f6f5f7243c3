/// Conversions between sample layouts and encodings.
public enum SampleConversion {
    /// Averages interleaved frames of `channels` into one channel; a trailing partial frame is dropped.
    static func mixdown(_ interleaved: [Float], channels: Int) -> [Float] {
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

    /// Interleaved frames of `from` channels as frames of `to` channels: unchanged when the counts
    /// match, otherwise each frame averaged to mono and that copied to every output channel.
    public static func remix(_ interleaved: [Float], from: Int, to: Int) -> [Float] {
        precondition(from > 0 && to > 0, "channel counts must be positive")
        guard from != to else { return interleaved }
        let mono = mixdown(interleaved, channels: from)
        if to == 1 { return mono }
        return [Float](unsafeUninitializedCapacity: mono.count * to) { out, initialized in
            for (frame, sample) in mono.enumerated() {
                for channel in 0..<to { out[frame * to + channel] = sample }
            }
            initialized = mono.count * to
        }
    }

    /// One channel of interleaved frames.
    public static func channel(_ index: Int, of interleaved: [Float], channels: Int) -> [Float] {
        precondition(channels > 0 && index >= 0 && index < channels, "channel \(index) of \(channels)")
        let frames = interleaved.count / channels
        return (0..<frames).map { interleaved[$0 * channels + index] }
    }

    /// Splits interleaved frames into one array per channel.
    static func deinterleave(_ interleaved: [Float], channels: Int) -> [[Float]] {
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

    /// `count` little-endian samples of `encoding` from the start of `bytes` as Float: integer PCM
    /// scaled to [-1, 1) (8-bit unsigned around 128, wider containers by their top 32 bits), float as stored.
    public static func floats(decoding bytes: UnsafeRawBufferPointer, encoding: WAVEncoding, count: Int) -> [Float] {
        let width = encoding.bytesPerSample
        precondition(count >= 0 && count * width <= bytes.count, "\(count) samples of \(width) bytes in \(bytes.count) bytes")
        return [Float](unsafeUninitializedCapacity: count) { out, initialized in
            switch encoding {
            case .integer(bits: ...8):
                for index in 0..<count { out[index] = (Float(bytes[index]) - 128) / 128 }
            case .integer(bits: ...16):
                for index in 0..<count {
                    out[index] = Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * index, as: Int16.self)))
                        / 32768
                }
            case .integer(bits: ...24):
                for index in 0..<count {
                    let offset = 3 * index
                    let packed = UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 24
                    out[index] = Float(Int32(bitPattern: packed)) / 2_147_483_648
                }
            case .integer:
                // Wider containers (32-bit, or 20/24 valid bits left-justified in 32) keep their top 32 bits.
                for index in 0..<count {
                    let offset = width * index + (width - 4)
                    out[index] = Float(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
                        / 2_147_483_648
                }
            case .float(bits: 64):
                for index in 0..<count {
                    let bits = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
                    out[index] = Float(Double(bitPattern: bits))
                }
            case .float:
                for index in 0..<count {
                    let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
                    out[index] = Float(bitPattern: bits)
                }
            }
            initialized = count
        }
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
