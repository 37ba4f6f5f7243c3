import ChorusText

/// Stage 1: a voice's reference and the text to the backbone's prompt ids, as upstream's
/// `NeuTTS._apply_chat_template` builds them for phoneme backbones (neutts.py):
///
/// `[BOS when the tokenizer adds one] "user: Convert the text to speech:" <|TEXT_PROMPT_START|>
/// phones(reference) " " phones(text) <|TEXT_PROMPT_END|> "\nassistant:" <|SPEECH_GENERATION_START|>
/// <|speech_c0|> ... <|speech_cK|>`
///
/// The fixed text is encoded from upstream's template with the tokenizer's own additions, the phoneme
/// string on its own without them; every id is read from the tokenizer, never assumed.
public struct PromptBuilder: Sendable {
    /// upstream's chat template for phoneme backbones.
    public static let template = "user: Convert the text to speech:<|TEXT_REPLACE|>\nassistant:<|SPEECH_REPLACE|>"
    /// The control tokens the prompt and generation use.
    public static let controlTokens = ["<|TEXT_REPLACE|>", "<|TEXT_PROMPT_START|>", "<|TEXT_PROMPT_END|>",
                                       "<|SPEECH_REPLACE|>", "<|SPEECH_GENERATION_START|>", "<|SPEECH_GENERATION_END|>"]
    /// NeuCodec's codebook size: codes 0..<65536, one token `<|speech_N|>` each.
    public static let codebookSize = 65536

    public let tokenizer: BPETokenizer
    /// The id that ends generation (`<|SPEECH_GENERATION_END|>`).
    public let stopToken: Int
    let textPromptStart: Int, textPromptEnd: Int, speechGenerationStart: Int
    /// The template's ids before and after the text placeholder (after up to the speech placeholder).
    let head: [Int], middle: [Int]
    /// The id of `<|speech_N|>` at N.
    let speechIDs: [Int32]
    /// The code of each speech id, keyed by id.
    let codeByID: [Int32: Int32]

    /// A builder over `tokenizer`; throws naming `source` when a control or speech token is missing.
    public init(tokenizer: BPETokenizer, source: String) throws {
        self.tokenizer = tokenizer
        func id(_ token: String) throws -> Int {
            guard let id = tokenizer.id(of: token) else { throw NeuTTSError.missingToken(token, tokenizer: source) }
            return id
        }
        stopToken = try id("<|SPEECH_GENERATION_END|>")
        textPromptStart = try id("<|TEXT_PROMPT_START|>")
        textPromptEnd = try id("<|TEXT_PROMPT_END|>")
        speechGenerationStart = try id("<|SPEECH_GENERATION_START|>")
        let textReplace = try id("<|TEXT_REPLACE|>"), speechReplace = try id("<|SPEECH_REPLACE|>")
        var speechIDs = [Int32](repeating: 0, count: Self.codebookSize)
        var codeByID: [Int32: Int32] = [:]
        codeByID.reserveCapacity(Self.codebookSize)
        for code in 0..<Self.codebookSize {
            let token = try id("<|speech_\(code)|>")
            speechIDs[code] = Int32(token)
            codeByID[Int32(token)] = Int32(code)
        }
        self.speechIDs = speechIDs
        self.codeByID = codeByID
        let ids = try tokenizer.encode(Self.template)
        guard let text = ids.firstIndex(of: textReplace), let speech = ids.firstIndex(of: speechReplace), text < speech else {
            throw NeuTTSError.missingToken("<|TEXT_REPLACE|> before <|SPEECH_REPLACE|> in the encoded template", tokenizer: source)
        }
        head = Array(ids[..<text])
        middle = Array(ids[(text + 1)..<speech])
    }

    /// The prompt ids for a voice whose transcript's phonemes are `referencePhonemes` and whose codes are
    /// `referenceCodes`, speaking the text whose phonemes are `textPhonemes`.
    public func ids(referencePhonemes: String, textPhonemes: String, referenceCodes: [Int]) throws -> [Int] {
        let phones = try encodeAlone(referencePhonemes + " " + textPhonemes)
        var ids = head
        ids.reserveCapacity(head.count + phones.count + middle.count + referenceCodes.count + 3)
        ids.append(textPromptStart)
        ids += phones
        ids.append(textPromptEnd)
        ids += middle
        ids.append(speechGenerationStart)
        for code in referenceCodes {
            guard (0..<Self.codebookSize).contains(code) else { throw NeuTTSError.codeOutOfRange(code) }
            ids.append(Int(speechIDs[code]))
        }
        return ids
    }

    /// `text` encoded without the tokenizer's template (`add_special_tokens=False`).
    func encodeAlone(_ text: String) throws -> [Int] {
        let ids = try tokenizer.encode(text)
        let (prefix, suffix) = tokenizer.template
        return Array(ids.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// The codes among generated `ids`, in order, as upstream reads them from the decoded text
    /// (`<|speech_N|>` found by regex); every other id is ignored.
    public func codes(in ids: [Int]) -> [Int] {
        ids.compactMap { id in codeByID[Int32(truncatingIfNeeded: id)].map(Int.init) }
    }

    /// The code of one generated id, or nil for a token that is not a speech token.
    public func code(of id: Int) -> Int? { codeByID[Int32(truncatingIfNeeded: id)].map(Int.init) }
}
