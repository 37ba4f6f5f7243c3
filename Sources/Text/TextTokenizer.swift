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
