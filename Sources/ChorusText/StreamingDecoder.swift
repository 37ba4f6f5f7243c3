/// Decodes ids one at a time, as a language model emits them, and returns text only once its
/// characters are complete: a character whose UTF-8 bytes are split across tokens waits for the rest.
struct StreamingDecoder<Tokenizer: TextTokenizer & ByteDecoding>: Sendable {
    /// The tokenizer whose ids are decoded.
    let tokenizer: Tokenizer
    /// Whether special tokens are left out.
    let skipsSpecialTokens: Bool
    private var pending: [UInt8] = []

    /// A decoder for `tokenizer`'s ids.
    init(tokenizer: Tokenizer, skipsSpecialTokens: Bool = false) {
        self.tokenizer = tokenizer
        self.skipsSpecialTokens = skipsSpecialTokens
    }

    /// The text that `id` completes, possibly empty.
    mutating func append(_ id: Int) throws -> String {
        pending += try tokenizer.bytes(of: [id], skipsSpecialTokens: skipsSpecialTokens)
        let complete = UTF8Validation.completePrefixLength(pending)
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Whatever is left, with an incomplete character shown as U+FFFD.
    mutating func finish() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }
}

/// A tokenizer that can give the raw bytes of ids, before they are read as UTF-8.
public protocol ByteDecoding {
    /// The bytes `ids` stand for.
    func bytes(of ids: [Int], skipsSpecialTokens: Bool) throws -> [UInt8]
}

extension BPETokenizer: ByteDecoding {}
