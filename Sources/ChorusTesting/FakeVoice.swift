import Foundation

/// The audio a fake speech service makes for a text: deterministic 16-bit PCM, 240 samples per UTF-8 byte.
public enum FakeVoice {
    /// The little-endian PCM for `text`.
    public static func pcm(for text: String) -> Data {
        let count = 240 * text.utf8.count
        let values = (0..<count).map { Int16(truncatingIfNeeded: $0 &* 37 &+ text.utf8.count &* 1000) }
        return values.withUnsafeBytes { Data($0) }
    }

    /// `data` in pieces of `size` bytes; an odd size cuts samples in half.
    public static func pieces(_ data: Data, size: Int) -> [Data] {
        stride(from: 0, to: data.count, by: size).map { data[$0..<min($0 + size, data.count)] }
    }
}
