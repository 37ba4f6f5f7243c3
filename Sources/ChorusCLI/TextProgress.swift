import Foundation

/// How much of a request's text the audio so far speaks, for a progress line that tracks text consumed
/// rather than audio made. Engines name the piece of text each chunk speaks, the same piece on every chunk
/// it yields (a sentence each, or a streamed part each), so a piece counts once: the first time it appears,
/// found in order from where the previous one ended.
struct TextProgress {
    let text: String
    private let total: Int
    private var cursor: String.Index
    private var lastPiece: String?
    /// Characters of `text` spoken so far.
    private(set) var consumed = 0

    init(text: String) {
        self.text = text
        total = max(text.count, 1)
        cursor = text.startIndex
    }

    /// Percent of the text spoken, 0 to 100.
    var percent: Int { min(100, 100 * consumed / total) }

    /// Notes a chunk that speaks `piece`; a chunk naming no piece, or the piece of the chunk before, adds nothing.
    mutating func advance(past piece: String?) {
        guard let piece, !piece.isEmpty, piece != lastPiece else { return }
        lastPiece = piece
        let end: String.Index
        if let found = text.range(of: piece, range: cursor..<text.endIndex) {
            end = found.upperBound
        } else {
            // A piece the engine rewrote (normalised numbers, say) is not in the text: count its length.
            end = text.index(cursor, offsetBy: piece.count, limitedBy: text.endIndex) ?? text.endIndex
        }
        consumed += text[cursor..<end].count
        cursor = end
    }
}
