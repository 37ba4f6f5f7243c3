/// A byte-level BPE tokenizer (GPT-2, Qwen2 and the models built on them: CosyVoice, Chatterbox,
/// NeuTTS), exact against Hugging Face `tokenizers`.
///
/// Encoding runs these stages in order: added tokens are cut out of the text whole; each remaining
/// part is normalised (NFC for Qwen2), split by the pre-tokenizer's expression, spelt in byte-level
/// characters and merged by rank; a post-processor template may add tokens around the result.
/// Decoding joins the tokens' bytes before reading them as UTF-8, so characters split across tokens
/// come out whole.
public struct BPETokenizer: TextTokenizer {
    /// How text is split before merging.
    public let preTokenizer: PreTokenizer
    /// Normalisation applied to text outside added tokens.
    public let normalization: UnicodeNormalization
    /// Whether a space is put in front of text that does not start with one (GPT-2's `add_prefix_space`).
    public let addsPrefixSpace: Bool
    /// Tokens matched whole before splitting, in the order they were added.
    public let addedTokens: [AddedToken]
    /// Ids put before and after every encoded text (a tokenizer.json `TemplateProcessing`).
    public let template: (prefix: [Int], suffix: [Int])

    let model: BPEModel
    private let matcher: AddedTokenMatcher
    private let decodeBytes: [UInt8]
    private let decodeOffsets: [Int32]
    private let specialIDs: Set<Int>
    private let addedByID: [Int: AddedToken]
    private let addedByContent: [String: Int]

    /// A tokenizer from its parts; `merges` are token pairs in rank order.
    public init(
        vocabulary: [String: Int], merges: [(String, String)], pattern: PreTokenizer.Pattern,
        normalization: UnicodeNormalization, addedTokens: [AddedToken] = [], addsPrefixSpace: Bool = false,
        ignoresMerges: Bool = false, unknownToken: String? = nil, template: (prefix: [Int], suffix: [Int]) = ([], []),
        source: String = "vocabulary"
    ) throws {
        let model = try BPEModel(
            vocabulary: vocabulary, merges: merges, ignoresMerges: ignoresMerges, unknownToken: unknownToken,
            source: source)
        let limit = BPEModel.idLimit(entries: vocabulary.count + addedTokens.count)
        if let token = addedTokens.first(where: { $0.id < 0 || $0.id >= limit }) {
            throw TokenizerError.malformedFile(
                path: source,
                reason: "added token \(token.content.debugDescription) has id \(token.id), outside 0..<\(limit) for \(vocabulary.count) tokens and \(addedTokens.count) added ones")
        }
        self.init(
            model: model, preTokenizer: PreTokenizer(pattern), normalization: normalization,
            addsPrefixSpace: addsPrefixSpace, addedTokens: addedTokens, template: template)
    }

    init(
        model: BPEModel, preTokenizer: PreTokenizer, normalization: UnicodeNormalization, addsPrefixSpace: Bool,
        addedTokens: [AddedToken], template: (prefix: [Int], suffix: [Int])
    ) {
        self.model = model
        self.preTokenizer = preTokenizer
        self.normalization = normalization
        self.addsPrefixSpace = addsPrefixSpace
        self.addedTokens = addedTokens
        self.template = template
        self.matcher = AddedTokenMatcher(addedTokens)
        var addedByID: [Int: AddedToken] = [:]
        var addedByContent: [String: Int] = [:]
        for token in addedTokens {
            addedByID[token.id] = token
            addedByContent[token.content] = token.id
        }
        self.addedByID = addedByID
        self.addedByContent = addedByContent
        self.specialIDs = Set(addedTokens.filter(\.isSpecial).map(\.id))

        // The bytes of every id, as the byte-level decoder reads them: a token whose characters
        // are all in the byte map stands for those bytes, any other for its own UTF-8.
        let size = max(model.tokens.count, (addedTokens.map(\.id).max() ?? -1) + 1)
        var bytes: [UInt8] = []
        var offsets: [Int32] = [0]
        bytes.reserveCapacity(size * 6)
        offsets.reserveCapacity(size + 1)
        for id in 0..<size {
            let spelling = addedByID[id]?.content ?? (id < model.tokens.count ? model.tokens[id] : "")
            bytes.append(contentsOf: ByteLevel.decode(spelling) ?? Array(spelling.utf8))
            offsets.append(Int32(bytes.count))
        }
        self.decodeBytes = bytes
        self.decodeOffsets = offsets
    }

    public var vocabularySize: Int { decodeOffsets.count - 1 }

    public func id(of token: String) -> Int? {
        if let added = addedByContent[token] { return added }
        return model.ids[token].map(Int.init)
    }

    public func token(of id: Int) -> String? {
        if let added = addedByID[id] { return added.content }
        guard id >= 0, id < model.tokens.count, !model.tokens[id].isEmpty else { return nil }
        return model.tokens[id]
    }

    /// This tokenizer with `tokens` added as special tokens, as `add_special_tokens` does in
    /// Hugging Face `transformers`: a token already known keeps its id, each new one takes the
    /// next id, in order.
    public func addingSpecialTokens(_ tokens: [String]) -> BPETokenizer {
        var added = addedTokens
        var indexByContent: [String: Int] = [:]
        for (index, token) in added.enumerated() { indexByContent[token.content] = index }
        var next = max(model.ids.count, (added.map(\.id).max() ?? -1) + 1)
        for content in tokens {
            if let index = indexByContent[content] {
                added[index].isSpecial = true
                continue
            }
            indexByContent[content] = added.count
            if let id = model.ids[content] {
                added.append(AddedToken(content: content, id: Int(id)))
                continue
            }
            added.append(AddedToken(content: content, id: next))
            next += 1
        }
        return BPETokenizer(
            model: model, preTokenizer: preTokenizer, normalization: normalization, addsPrefixSpace: addsPrefixSpace,
            addedTokens: added, template: template)
    }

    // MARK: - Encoding

    public func encode(_ text: String) throws -> [Int] {
        var text = text
        var output: [Int32] = []
        output.reserveCapacity(text.utf8.count / 3 + template.prefix.count + template.suffix.count)
        output.append(contentsOf: template.prefix.map { Int32($0) })
        try text.withUTF8 { bytes in
            var state = EncodingState()
            for segment in matcher.segments(of: bytes) {
                switch segment {
                case .token(let id):
                    output.append(Int32(id))
                case .text(let range):
                    try encodePlain(UnsafeBufferPointer(rebasing: bytes[range]), into: &output, state: &state)
                }
            }
        }
        output.append(contentsOf: template.suffix.map { Int32($0) })
        return output.map(Int.init)
    }

    private struct EncodingState {
        var scratch = MergeScratch()
        var cache = WordCache()
    }

    private func encodePlain(
        _ bytes: UnsafeBufferPointer<UInt8>, into output: inout [Int32], state: inout EncodingState
    ) throws {
        var replacement: String? = normalization.normalized(bytes)
        if addsPrefixSpace, (replacement?.utf8.first ?? bytes.first) != UInt8(ascii: " ") {
            replacement = " " + (replacement ?? String(decoding: bytes, as: UTF8.self))
        }
        if var replacement {
            try replacement.withUTF8 { try encodePieces($0, into: &output, state: &state) }
        } else {
            try encodePieces(bytes, into: &output, state: &state)
        }
    }

    private func encodePieces(
        _ bytes: UnsafeBufferPointer<UInt8>, into output: inout [Int32], state: inout EncodingState
    ) throws {
        try preTokenizer.split(bytes) { start, end in
            let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
            var hash: UInt64 = 0
            if state.cache.lookup(piece, into: &output, hash: &hash) { return }
            let first = output.count
            try model.encode(piece: piece, into: &output, scratch: &state.scratch)
            state.cache.insert(piece, hash: hash, ids: output[first...])
        }
    }

    // MARK: - Decoding

    public func decode(_ ids: [Int], skipsSpecialTokens: Bool) throws -> String {
        String(decoding: try bytes(of: ids, skipsSpecialTokens: skipsSpecialTokens), as: UTF8.self)
    }

    /// The bytes `ids` stand for, before they are read as UTF-8.
    public func bytes(of ids: [Int], skipsSpecialTokens: Bool = false) throws -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(ids.count * 4)
        for id in ids {
            guard id >= 0, id < vocabularySize else { throw TokenizerError.unknownID(id) }
            let start = Int(decodeOffsets[id])
            let end = Int(decodeOffsets[id + 1])
            if start == end, addedByID[id] == nil, model.tokens.count <= id || model.tokens[id].isEmpty {
                throw TokenizerError.unknownID(id)
            }
            if skipsSpecialTokens, specialIDs.contains(id) { continue }
            result.append(contentsOf: decodeBytes[start..<end])
        }
        return result
    }
}
