/// Strict UTF-8 checks, as `sentencepiece` and Swift's `String(validating:as:)` make them: no overlong
/// forms, no surrogates, nothing above U+10FFFF. The tokenizers, the streaming decoder and the
/// command's text input all check bytes with these.
public enum UTF8Validation {
    /// The length of the valid UTF-8 character at the start of `bytes`, or 0 when it is not valid.
    static func validLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let lead = bytes.first else { return 0 }
        if lead < 0x80 { return 1 }
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; value = UInt32(lead & 0x07)
        default: return 0
        }
        guard bytes.count >= length else { return 0 }
        for index in 1..<length {
            let byte = bytes[index]
            guard byte & 0xC0 == 0x80 else { return 0 }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return 0 }
        return length
    }

    /// How many bytes at the start of `bytes` are whole, valid characters: all of them when the
    /// bytes are valid UTF-8, else the offset of the first character that is not.
    public static func validPrefixLength(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let length = validLength(UnsafeBufferPointer(rebasing: buffer[offset...]))
                if length == 0 { break }
                offset += length
            }
            return offset
        }
    }

    /// How many leading bytes can be read now when more may follow: all but a trailing character
    /// whose lead byte has come without all its continuation bytes. Says nothing of validity.
    public static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        var start = bytes.count
        // Look back at most three bytes for the lead byte of the last sequence.
        while start > 0, bytes.count - start < 4 {
            start -= 1
            let byte = bytes[start]
            if byte & 0xC0 != 0x80 {
                let needed: Int
                switch byte {
                case 0xC2...0xDF: needed = 2
                case 0xE0...0xEF: needed = 3
                case 0xF0...0xF4: needed = 4
                default: return bytes.count  // ASCII or a byte that can never start a sequence
                }
                return bytes.count - start < needed ? start : bytes.count
            }
        }
        return bytes.count
    }
}
