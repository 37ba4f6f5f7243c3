import Foundation

/// The audio of a flood (a long answer a fake service sends faster than it plays): sample `i` is a
/// function of `i` alone, so a piece lost, repeated or moved is seen (`FloodCheckingSink`).
public enum FloodVoice {
    /// Sample `index` of the flood.
    public static func sample(_ index: Int) -> Int16 {
        Int16(truncatingIfNeeded: index &* 37 &+ (index >> 14) &* 101)
    }

    /// The little-endian bytes `range` of the whole flood.
    public static func bytes(_ range: Range<Int>) -> Data {
        var data = Data(capacity: range.count)
        for byte in range {
            let value = UInt16(bitPattern: sample(byte / 2))
            data.append(byte % 2 == 0 ? UInt8(value & 0xff) : UInt8(value >> 8))
        }
        return data
    }
}
