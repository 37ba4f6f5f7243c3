/// Decodes ids one at a time, as a language model emits them, and returns text only once its
/// characters are complete: a character whose UTF-8 bytes are split across tokens waits for the rest.
public struct StreamingDecoder<Tokenizer: TextTokenizer & ByteDecoding>: Sendable {
    /// The tokenizer whose ids are decoded.
    public let tokenizer: Tokenizer
    /// Whether special tokens are left out.
    public let skipsSpecialTokens: Bool
    private var pending: [UInt8] = []

    /// A decoder for `tokenizer`'s ids.
    public init(tokenizer: Tokenizer, skipsSpecialTokens: Bool = false) {
        self.tokenizer = tokenizer
        self.skipsSpecialTokens = skipsSpecialTokens
    }

    /// The text that `id` completes, possibly empty.
    public mutating func append(_ id: Int) throws -> String {
        pending += try tokenizer.bytes(of: [id], skipsSpecialTokens: skipsSpecialTokens)
        let complete = Self.completePrefixLength(pending)
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Whatever is left, with an incomplete character shown as U+FFFD.
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// How many leading bytes can be decoded now: all but a trailing, still incomplete sequence.
    static func completePrefixLength(_ bytes: [UInt8]) -> Int {
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

/// A tokenizer that can give the raw bytes of ids, before they are read as UTF-8.
public protocol ByteDecoding {
    /// The bytes `ids` stand for.
    func bytes(of ids: [Int], skipsSpecialTokens: Bool) throws -> [UInt8]
}

extension BPETokenizer: ByteDecoding {}
