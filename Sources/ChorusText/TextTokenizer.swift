/// Turns text into token ids and back: what every Chorus tokenizer offers.
public protocol TextTokenizer: Sendable {
    /// The ids of `text`.
    func encode(_ text: String) throws -> [Int]
    /// The text of `ids`; special tokens are left out when `skipsSpecialTokens` is true.
    func decode(_ ids: [Int], skipsSpecialTokens: Bool) throws -> String
    /// The id of a token given by its spelling in the vocabulary, if it has one.
    func id(of token: String) -> Int?
    /// The spelling of the token with `id`, if there is one.
    func token(of id: Int) -> String?
    /// One more than the largest id.
    var vocabularySize: Int { get }
}

extension TextTokenizer {
    /// The text of `ids`, special tokens included.
    public func decode(_ ids: [Int]) throws -> String {
        try decode(ids, skipsSpecialTokens: false)
    }
}

extension TextTokenizer {
    /// The ids of UTF-8 text given as bytes, which are checked first.
    public func encode(utf8 bytes: some Collection<UInt8>) throws -> [Int] {
        let array = Array(bytes)
        let offset = UTF8Validation.validPrefixLength(array)
        guard offset == array.count else { throw TokenizerError.invalidUTF8(offset: offset) }
        return try encode(String(decoding: array, as: UTF8.self))
    }
}
