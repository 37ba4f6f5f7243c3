import Foundation

/// Unicode normalisation applied to text before it is split.
public enum UnicodeNormalization: Sendable, Equatable {
    /// Text is used as given.
    case none
    /// Canonical composition (NFC), as Qwen2's tokenizer does.
    case nfc

    /// The normalised form of the UTF-8 text `bytes`, or nil when it is already normal.
    func normalized(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard self == .nfc, !Self.isSurelyComposed(bytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let composed = text.precomposedStringWithCanonicalMapping
        return composed.utf8.elementsEqual(text.utf8) ? nil : composed
    }

    /// Whether every scalar is one that NFC leaves alone whatever surrounds it: no combining class,
    /// no decomposition, never the second half of a composition. Checked over whole ranges that hold
    /// only such scalars (Unicode 14 data), so most text skips the full algorithm.
    private static func isSurelyComposed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let lead = bytes[offset]
            if lead < 0x80 {
                offset += 1
                continue
            }
            guard let scalar = UTF8Scalars.scalar(startingAt: offset, in: bytes) else { return false }
            switch scalar.value {
            case 0x80...0x2FF, 0x2010...0x2027, 0x2030...0x205E, 0x3000...0x3029, 0x3030...0x3098,
                 0x309B...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFFEF,
                 0x1F300...0x1FAFF:
                offset += UTF8.width(scalar)
            default:
                return false
            }
        }
        return true
    }
}
