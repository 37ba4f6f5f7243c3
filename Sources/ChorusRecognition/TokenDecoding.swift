import Foundation
import ChorusModels
import ChorusText

/// Turns a CTC head's token ids into text: the SentencePiece model for the transcript, a symbol
/// list for a pronunciation head.
public protocol TokenDecoding: Sendable {
    /// Tokens the head can emit, not counting the blank.
    var vocabularySize: Int { get }
    /// The text of `ids`.
    func decode(_ ids: [Int]) throws -> String
    /// Where the vocabulary came from (its file), to name it in errors.
    var source: String { get }
    /// Whether token `id` begins a word of the decoded text (SentencePiece's `▁`).
    func startsWord(_ id: Int) -> Bool
}

extension TokenDecoding {
    public var source: String { "the vocabulary given to the recogniser" }

    /// Every token a word of its own, as symbol lists decode.
    public func startsWord(_ id: Int) -> Bool { true }

    /// `tokens` cut into the runs that spell each of `words` (their text split at whitespace), or `nil`
    /// when the runs do not decode to exactly those words (a normaliser that changes spacing, say).
    public func wordTokens(_ tokens: [Int], words: [String]) -> [[Int]]? {
        var runs: [[Int]] = []
        for token in tokens {
            if runs.isEmpty || startsWord(token) { runs.append([token]) } else { runs[runs.count - 1].append(token) }
        }
        guard runs.count == words.count else { return nil }
        for (run, word) in zip(runs, words) {
            guard let text = try? decode(run), text.trimmingCharacters(in: .whitespaces) == word else { return nil }
        }
        return runs
    }
}

/// A SentencePiece model (`tokenizer.model`) as a CTC vocabulary: Text's decoder, control pieces left out.
public struct SentencePieceVocabulary: TokenDecoding {
    /// The model, from Text.
    public let tokenizer: SentencePieceTokenizer
    /// The file it was read from, to name it in errors.
    public let source: String

    public init(tokenizer: SentencePieceTokenizer, source: String = "the SentencePiece model") {
        self.tokenizer = tokenizer
        self.source = source
    }

    /// Reads the `.model` file at `url`.
    public init(contentsOf url: URL) throws {
        tokenizer = try SentencePieceTokenizer(contentsOf: url)
        source = url.path
    }

    public var vocabularySize: Int { tokenizer.vocabularySize }

    public func decode(_ ids: [Int]) throws -> String {
        try tokenizer.decode(ids, skipsSpecialTokens: true)
    }

    public func startsWord(_ id: Int) -> Bool {
        tokenizer.token(of: id)?.hasPrefix("\u{2581}") ?? false
    }
}

/// A vocabulary read from a text file, one symbol per line in id order; decoded symbols are
/// joined with spaces (a phone or letter sequence, as a pronunciation head emits).
public struct SymbolVocabulary: TokenDecoding, Equatable {
    /// The symbols by id.
    public let symbols: [String]
    /// The file it was read from, to name it in errors.
    public let source: String

    public init(symbols: [String], source: String = "the symbol list") {
        self.symbols = symbols
        self.source = source
    }

    /// Reads `url`: one symbol per line, blank lines ignored.
    public init(contentsOf url: URL) throws {
        let text = try vocabularyText(at: url, lines: "one symbol")
        symbols = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        source = url.path
    }

    public var vocabularySize: Int { symbols.count }

    public func decode(_ ids: [Int]) -> String {
        ids.compactMap { symbols.indices.contains($0) ? symbols[$0] : nil }.joined(separator: " ")
    }
}

/// A subword vocabulary as NeMo and sherpa-onnx exports list it in `tokens.txt`: one `piece id`
/// per line, SentencePiece pieces whose `▁` marks a word start. The blank line (`<blk>`), if listed,
/// must be last, as the head's blank is.
public struct PieceVocabulary: TokenDecoding, Equatable {
    /// The pieces by id, without the blank.
    public let pieces: [String]
    /// The file it was read from, to name it in errors.
    public let source: String

    public init(pieces: [String], source: String = "the piece list") {
        self.pieces = pieces
        self.source = source
    }

    /// Reads `url`; each line is a piece and its id, in id order.
    public init(contentsOf url: URL) throws {
        let text = try vocabularyText(at: url, lines: "one `piece id`")
        var pieces: [String] = []
        for line in text.split(whereSeparator: \.isNewline) where !line.isEmpty {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 2, let id = Int(fields.last!), id == pieces.count else {
                throw RecognitionError.unexpectedModel(
                    path: url.path, reason: "line \(pieces.count + 1) is not `piece \(pieces.count)`")
            }
            pieces.append(fields.dropLast().joined(separator: " "))
        }
        if pieces.last == "<blk>" { pieces.removeLast() }
        self.pieces = pieces
        source = url.path
    }

    public var vocabularySize: Int { pieces.count }

    public func startsWord(_ id: Int) -> Bool {
        pieces.indices.contains(id) && pieces[id].hasPrefix("\u{2581}")
    }

    /// The pieces joined, `▁` read as a space, control pieces (`<unk>`, `<s>`, `</s>`) left out;
    /// for byte pieces and normalisation use the SentencePiece model itself.
    public func decode(_ ids: [Int]) -> String {
        var text = ""
        for id in ids where pieces.indices.contains(id) {
            let piece = pieces[id]
            if piece.hasPrefix("<"), piece.hasSuffix(">") { continue }
            text += piece.replacingOccurrences(of: "\u{2581}", with: " ")
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
}

/// The text of a vocabulary file whose lines each hold `lines`, or an error naming the file.
private func vocabularyText(at url: URL, lines: String) throws -> String {
    guard FileManager.default.fileExists(atPath: url.path) else { throw FastConformerRecognizer.manifest.missing(url.path) }
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
        throw TokenizerError.unreadableFile(path: url.path, reason: "it must be a UTF-8 text file with \(lines) per line")
    }
    return text
}
