import ChorusText
import Foundation

/// How `embed_tokens` numbers what it embeds: the one place Chorus states the convention.
///
/// The export embeds speech ids (0..6562) and text ids with one table, speech rows first, so a GPT-2 text
/// id `t` is row `t + 6563`, and its tokenizer's post-processor ends every text with start-of-speech (6561),
/// the last prefill position of upstream's T3 (`inference_turbo`). This is inferred from the export's table
/// size and its ports, not read from the real files (the reference notes say so); `ChatterboxTextEncoder`
/// checks it against the tokenizer on load.
public enum EmbeddingIDs {
    /// Speech ids: 6561 S3 tokens, start-of-speech and stop.
    public static let speechVocabulary = 6563
    /// S3 tokens are below this; anything at or above it is dropped before decoding (upstream's filter).
    public static let firstSpecialSpeechID = 6561
    /// Start-of-speech: ends the prefill.
    public static let startOfSpeech = 6561
    /// Stop: ends generation.
    public static let stopOfSpeech = 6562
    /// S3Gen's silence token; three of them end every utterance before decoding.
    public static let silence = 4299
    /// Where text ids start in the table.
    public static let textOffset = speechVocabulary

    /// The table row of GPT-2 text id `id`.
    public static func row(ofTextID id: Int) -> Int { id + textOffset }
}

/// Stage 1: text to the ids `embed_tokens` reads, as upstream's `generate` makes them: `punc_norm`, then
/// the GPT-2 tokenizer (bracket tags matched whole with their strip flags, as the tokenizer file sets them)
/// with truncation at `model_max_length`, then start-of-speech.
///
/// Two tokenizer forms are accepted and checked: the export's (text ids already shifted past the speech
/// ids, a post-processor appending 6561) and upstream's own GPT-2 files (ids from 0, nothing appended),
/// shifted here. Anything else is refused with the reason, so a mismatch cannot reach the model.
public struct ChatterboxTextEncoder: Sendable {
    /// Which numbering the tokenizer file uses.
    public enum Form: Sendable, Equatable {
        /// Ids already shifted past the speech table; start-of-speech appended by the post-processor.
        case shifted
        /// GPT-2's own ids, nothing appended (upstream's checkpoint folder).
        case plain
    }

    public let tokenizer: BPETokenizer
    public let form: Form
    /// Text tokens kept (upstream calls the tokenizer with truncation on): `model_max_length`, if the
    /// tokenizer config sets one.
    public let maximumTextTokens: Int?

    /// The tokenizer in `folder` (`tokenizer.json`, and `tokenizer_config.json` when present).
    public init(folder: URL) throws {
        let url = folder.appendingPathComponent("tokenizer.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ChatterboxError.unexpectedModel(path: folder.path, reason: "has no tokenizer.json")
        }
        let tokenizer = try BPETokenizer(tokenizerJSON: url)
        var maximum: Int? = nil
        let config = folder.appendingPathComponent("tokenizer_config.json")
        if let data = FileManager.default.contents(atPath: config.path) {
            guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ChatterboxError.tokenizerConvention(path: config.path, reason: "is not a JSON object")
            }
            // Hugging Face writes a huge sentinel when there is no limit.
            if let value = root["model_max_length"] as? Double, value > 0, value < 1e9 { maximum = Int(value) }
        }
        try self.init(tokenizer: tokenizer, maximumTextTokens: maximum, source: url.path)
    }

    /// An encoder over a loaded tokenizer; `source` names it in errors.
    public init(tokenizer: BPETokenizer, maximumTextTokens: Int? = nil, source: String = "tokenizer.json") throws {
        self.tokenizer = tokenizer
        self.maximumTextTokens = maximumTextTokens
        form = try Self.form(of: tokenizer, source: source)
    }

    /// Reads the id convention off the tokenizer: its post-processor and where its ids start.
    static func form(of tokenizer: BPETokenizer, source: String) throws -> Form {
        // GPT-2's "!" is id 0; in the export's numbering it is row 6563.
        guard let exclamation = tokenizer.id(of: "!") else {
            throw ChatterboxError.tokenizerConvention(path: source, reason: "has no \"!\" token, so it is not a GPT-2 vocabulary")
        }
        let (prefix, suffix) = tokenizer.template
        guard prefix.isEmpty else {
            throw ChatterboxError.tokenizerConvention(
                path: source, reason: "puts \(prefix) before the text, where Chatterbox expects nothing")
        }
        let lowest = (tokenizer.addedTokens.map(\.id) + [exclamation]).min() ?? exclamation
        switch (suffix, exclamation) {
        case ([EmbeddingIDs.startOfSpeech], EmbeddingIDs.textOffset) where lowest >= EmbeddingIDs.textOffset:
            return .shifted
        case ([], 0):
            return .plain
        case ([EmbeddingIDs.startOfSpeech], _):
            throw ChatterboxError.tokenizerConvention(
                path: source, reason: "appends start-of-speech (6561) but numbers \"!\" \(exclamation) and its lowest id is "
                    + "\(lowest), where embed_tokens reads text from row 6563 (GPT-2 id + 6563)")
        case ([], _):
            throw ChatterboxError.tokenizerConvention(
                path: source, reason: "numbers \"!\" \(exclamation), neither GPT-2's 0 nor the export's 6563")
        default:
            throw ChatterboxError.tokenizerConvention(
                path: source, reason: "appends \(suffix) to every text, where embed_tokens expects start-of-speech (6561) or nothing")
        }
    }

    /// The `embed_tokens` ids of `text` after `punc_norm`: text rows, then start-of-speech.
    public func ids(for text: String) throws -> [Int] {
        try ids(forNormalized: PunctuationNormalizer.normalize(text))
    }

    /// The `embed_tokens` ids of text `punc_norm` has already seen.
    public func ids(forNormalized text: String) throws -> [Int] {
        var ids = try textIDs(forNormalized: text)
        if let maximumTextTokens, ids.count > maximumTextTokens { ids.removeLast(ids.count - maximumTextTokens) }
        if form == .plain { ids = ids.map(EmbeddingIDs.row(ofTextID:)) }
        return ids + [EmbeddingIDs.startOfSpeech]
    }

    /// How many text ids `text` gives after `punc_norm`, before truncation and start-of-speech: more than
    /// `maximumTextTokens` means `ids(for:)` drops some of its text.
    public func textTokenCount(for text: String) throws -> Int {
        try textIDs(forNormalized: PunctuationNormalizer.normalize(text)).count
    }

    /// The tokenizer's ids of `text` without the template's additions, untruncated.
    func textIDs(forNormalized text: String) throws -> [Int] {
        var ids = try tokenizer.encode(text)
        let (prefix, suffix) = tokenizer.template
        ids.removeFirst(prefix.count)
        ids.removeLast(suffix.count)
        return ids
    }

    /// The seed's chunker: pieces of at most `maxCharacters`, sentences packed while they fit, longer ones cut
    /// at clauses, then between words. Whitespace-only pieces are dropped; each piece is trimmed.
    public static func chunks(of text: String, maxCharacters: Int = 300) -> [String] {
        SentenceChunker(maxLength: maxCharacters, measure: .characters, packsSentences: true).split(text)
            .map { PythonStringRules.strip($0) }
            .filter { !$0.isEmpty }
    }
}
