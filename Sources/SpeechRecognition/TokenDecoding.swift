import Foundation

/// Turns a CTC head's token ids into text: the SentencePiece model for the transcript, a symbol
/// list for a pronunciation head.
public protocol TokenDecoding: Sendable {
    /// Tokens the head can emit, not counting the blank.
    var vocabularySize: Int { get }
    /// The text of `ids`.
    func decode(_ ids: [Int]) -> String
}

/// A vocabulary read from a text file, one symbol per line in id order; decoded symbols are
/// joined with spaces (a phone or letter sequence, as a pronunciation head emits).
public struct SymbolVocabulary: TokenDecoding, Equatable {
    public let symbols: [String]

    public init(symbols: [String]) {
        self.symbols = symbols
    }

    /// Reads `url`: one symbol per line, blank lines ignored.
    public init(contentsOf url: URL) throws {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw RecognitionError.missingModelFile(
                folder: url.deletingLastPathComponent().path, file: url.lastPathComponent,
                remedy: "It must be a UTF-8 text file with one symbol per line.")
        }
        symbols = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    }

    public var vocabularySize: Int { symbols.count }

    public func decode(_ ids: [Int]) -> String {
        ids.compactMap { symbols.indices.contains($0) ? symbols[$0] : nil }.joined(separator: " ")
    }
}
