import Foundation

/// Joins the transcripts of overlapping audio chunks into one, word by word.
///
/// The words both chunks heard appear at the end of the text so far and at the start of the new
/// text; the longest such run is kept once. Words at a chunk's cut edges are often misheard (a word
/// cut in half), so up to `edgeSlack` words at the end of the old text and the start of the new one
/// may be skipped to find the run, but then the run must be at least `minimumSlackOverlap` words
/// long, so a lone common word such as "the" cannot splice two texts in the wrong place.
///
/// The run can be no longer than the words the overlapping audio can hold
/// (`maximumOverlapWords`); without that bound, speech that repeats itself would match a whole
/// repetition too far back and lose it.
public struct TranscriptMerger: Sendable, Equatable {
    /// Words at each cut edge that may be dropped to find the common run.
    public var edgeSlack: Int
    /// The shortest common run accepted when edge words are dropped.
    public var minimumSlackOverlap: Int
    /// The longest common run; `nil` for no bound.
    public var maximumOverlapWords: Int?

    /// Fast speech, with room for subword tokens: the bound on words per second of overlap.
    public static let wordsPerSecond = 5.0

    public init(edgeSlack: Int = 2, minimumSlackOverlap: Int = 2, maximumOverlapWords: Int? = nil) {
        self.edgeSlack = edgeSlack
        self.minimumSlackOverlap = minimumSlackOverlap
        self.maximumOverlapWords = maximumOverlapWords
    }

    /// This merger with the run bounded by what `seconds` of overlapping audio can hold.
    public func bounded(toOverlapSeconds seconds: Double) -> TranscriptMerger {
        var merger = self
        merger.maximumOverlapWords = max(1, Int((seconds * Self.wordsPerSecond).rounded(.up)))
        return merger
    }

    /// `existing` followed by `new`, with the words they share written once.
    public func merge(_ existing: String, _ new: String) -> String {
        let old = Self.words(existing)
        let next = Self.words(new)
        let (keep, skip) = splice(old, next)
        return (old[..<keep] + next[skip...]).joined(separator: " ")
    }

    /// Where the words `next` continue the words `old`: the merged text is `old[..<keep]` followed by
    /// `next[skip...]`. Callers that carry something per word (token ids) cut it at the same places.
    public func splice(_ old: [String], _ next: [String]) -> (keep: Int, skip: Int) {
        guard !old.isEmpty, !next.isEmpty else { return (old.count, 0) }
        let oldKeys = old.map(Self.key)
        let nextKeys = next.map(Self.key)

        // Exact suffix = prefix first, longest first: the seed's rule, and the common case.
        let longest = min(old.count, next.count, maximumOverlapWords ?? .max)
        for length in stride(from: longest, through: 1, by: -1)
        where oldKeys.suffix(length).elementsEqual(nextKeys.prefix(length)) {
            return (old.count, length)
        }
        // Then allow misheard edge words: old[..<oldEnd] ends with the run, next[nextStart...] starts with it.
        var best: (oldEnd: Int, nextStart: Int, length: Int)?
        for dropped in 0...min(edgeSlack, old.count - 1) {
            let oldEnd = old.count - dropped
            for skipped in 0...min(edgeSlack, next.count - 1) where dropped + skipped > 0 {
                let length = Self.commonRun(oldKeys[..<oldEnd], nextKeys[skipped...], longest: maximumOverlapWords ?? .max)
                if length >= minimumSlackOverlap, length > best?.length ?? 0 {
                    best = (oldEnd, skipped, length)
                }
            }
        }
        if let best { return (best.oldEnd, best.nextStart + best.length) }
        return (old.count, 0)
    }

    /// The words of `text`, split at whitespace.
    public static func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The longest k such that the last k of `old` equal the first k of `next`.
    private static func commonRun(_ old: ArraySlice<String>, _ next: ArraySlice<String>, longest: Int) -> Int {
        for length in stride(from: min(old.count, next.count, longest), through: 1, by: -1)
        where old.suffix(length).elementsEqual(next.prefix(length)) {
            return length
        }
        return 0
    }

    /// Words compare without case and surrounding punctuation: chunk edges change both.
    private static func key(_ word: String) -> String {
        word.lowercased().trimmingCharacters(in: .punctuationCharacters)
    }
}

/// A transcript being merged chunk by chunk: its words, and each word's token ids as long as every
/// chunk's ids could be cut at its words.
struct WordTranscript: Equatable {
    var words: [String] = []
    /// The ids of each word; `nil` once a chunk's ids did not line up with its words.
    var tokens: [[Int]]? = []

    init() {}

    /// A chunk's words, with its `ids` cut at them by `vocabulary`.
    init(text: String, ids: [Int], vocabulary: any TokenDecoding) {
        words = TranscriptMerger.words(text)
        tokens = vocabulary.wordTokens(ids, words: words)
    }

    /// A chunk's words and their ids, as `ChunkTranscribing.transcribeWords` gives them.
    init(_ chunk: (text: String, wordTokens: [[Int]]?)) {
        words = TranscriptMerger.words(chunk.text)
        tokens = chunk.wordTokens.flatMap { $0.count == words.count ? $0 : nil }
    }

    /// Appends `next`: merged on the words both heard when `merger` is given (overlapping chunks),
    /// simply after the words so far otherwise.
    mutating func append(_ next: WordTranscript, merger: TranscriptMerger?) {
        let (keep, skip) = merger?.splice(words, next.words) ?? (words.count, 0)
        words = Array(words[..<keep] + next.words[skip...])
        if let mine = tokens, let theirs = next.tokens {
            tokens = Array(mine[..<keep] + theirs[skip...])
        } else {
            tokens = nil
        }
    }

    var text: String { words.joined(separator: " ") }
    /// All token ids in order, or none when they could not be kept.
    var ids: [Int] { tokens?.flatMap { $0 } ?? [] }
}
