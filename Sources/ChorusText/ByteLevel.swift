/// GPT-2's reversible map between bytes and printable characters.
///
/// Byte-level BPE vocabularies spell every token with these characters so that no token holds a
/// space or control byte: printable Latin-1 bytes stand for themselves, the other 68 bytes are
/// shifted to U+0100 and up, in byte order.
public enum ByteLevel {
    /// The character that stands for each byte.
    public static let characters: [Unicode.Scalar] = {
        var table = [Unicode.Scalar](repeating: "\0", count: 256)
        var shifted: UInt32 = 256
        for byte in 0..<256 {
            if isPrintable(UInt8(byte)) {
                table[byte] = Unicode.Scalar(UInt8(byte))
            } else {
                table[byte] = Unicode.Scalar(shifted)!
                shifted += 1
            }
        }
        return table
    }()

    /// The byte each mapped character stands for, indexed by scalar value (below U+0144).
    static let bytesByScalar: [Int16] = {
        var table = [Int16](repeating: -1, count: 0x144)
        for (byte, scalar) in characters.enumerated() { table[Int(scalar.value)] = Int16(byte) }
        return table
    }()

    private static func isPrintable(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) || (0xA1...0xAC).contains(byte) || (0xAE...0xFF).contains(byte)
    }

    /// `bytes` spelt in byte-level characters.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var result = String.UnicodeScalarView()
        for byte in bytes { result.append(characters[Int(byte)]) }
        return String(result)
    }

    /// The bytes a byte-level token spells, or nil when a character is outside the map.
    public static func decode(_ token: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            let value = Int(scalar.value)
            guard value < bytesByScalar.count, bytesByScalar[value] >= 0 else { return nil }
            bytes.append(UInt8(bytesByScalar[value]))
        }
        return bytes
    }
}
