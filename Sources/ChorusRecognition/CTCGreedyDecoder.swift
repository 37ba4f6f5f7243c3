/// Greedy CTC decoding: the best class of each frame, repeats collapsed, blanks dropped.
///
/// The blank's index is configurable: NeMo puts it last (index = vocabulary size), wav2vec2 and
/// many others first. The decoder keeps the last frame's class between calls, so logits can be fed
/// chunk by chunk as a streaming recogniser produces them; a repeat across a chunk boundary is
/// still collapsed.
public struct CTCGreedyDecoder: Sendable {
    /// One emitted token.
    public struct Token: Sendable, Equatable {
        /// The class id (never the blank).
        public var id: Int
        /// The frame where the token's run of frames starts, counted from the first frame decoded.
        public var frame: Int
        /// The winning score (logit or log-probability, as given) on that frame.
        public var score: Float

        /// A token.
        public init(id: Int, frame: Int, score: Float) {
            self.id = id
            self.frame = frame
            self.score = score
        }
    }

    /// The blank class.
    public let blank: Int
    private var previous: Int? = nil
    private var nextFrame = 0

    /// A decoder whose blank is class `blank`.
    public init(blank: Int) {
        precondition(blank >= 0, "the CTC blank index must not be negative, got \(blank)")
        self.blank = blank
    }

    /// A decoder for NeMo's layout: `vocabularySize` tokens, then the blank.
    public static func blankLast(vocabularySize: Int) -> CTCGreedyDecoder {
        CTCGreedyDecoder(blank: vocabularySize)
    }

    /// Decodes `scores`, row-major [frames, classes], continuing from earlier calls.
    public mutating func decode(scores: UnsafeBufferPointer<Float>, classes: Int) -> [Token] {
        precondition(classes > blank, "a CTC output with \(classes) classes cannot hold blank index \(blank)")
        precondition(scores.count % classes == 0, "\(scores.count) scores are not whole frames of \(classes) classes")
        var tokens: [Token] = []
        for frameStart in stride(from: 0, to: scores.count, by: classes) {
            var best = 0
            var bestScore = scores[frameStart]
            for index in 1..<classes where scores[frameStart + index] > bestScore {
                best = index
                bestScore = scores[frameStart + index]
            }
            if best != blank, best != previous {
                tokens.append(Token(id: best, frame: nextFrame, score: bestScore))
            }
            previous = best
            nextFrame += 1
        }
        return tokens
    }

    /// Decodes `scores`, row-major [frames, classes], continuing from earlier calls.
    public mutating func decode(scores: [Float], classes: Int) -> [Token] {
        scores.withUnsafeBufferPointer { decode(scores: $0, classes: classes) }
    }

    /// Decodes the best class of each frame (already chosen), continuing from earlier calls.
    public mutating func decode(bestClasses: [Int]) -> [Token] {
        var tokens: [Token] = []
        for best in bestClasses {
            if best != blank, best != previous {
                tokens.append(Token(id: best, frame: nextFrame, score: 0))
            }
            previous = best
            nextFrame += 1
        }
        return tokens
    }

    /// Forgets the frames decoded so far, to start a new utterance.
    public mutating func reset() {
        previous = nil
        nextFrame = 0
    }
}
