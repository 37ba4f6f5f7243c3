import ChorusDSP

/// One step of choosing the next token from a decoder's logits: a warper that changes the logits or
/// narrows the candidates in place, or a draw that picks the token. Steps are applied in order by a
/// `TokenSampler`; they keep no per-call buffers of their own (the sampler's `SamplingState` holds them),
/// so a step allocates nothing per token.
public protocol SamplingStep: Sendable {
    /// Changes `state` in place: its logits, its candidates, or (for a draw) its `token`.
    func apply(to state: inout SamplingState) throws
}

/// What sampling steps work on, made once per utterance and reused for every token.
///
/// The candidates stand for the logits that are still allowed: every token until a step narrows them
/// (top-k, top-p, min-p), then a list of indices. Tokens outside the list count as masked (-inf), without
/// writing the whole vocabulary. Probabilities come from a softmax computed only when a step needs one.
public struct SamplingState {
    /// The logits of this step, changed in place by the warpers (the decoder's output buffer).
    public internal(set) var logits: UnsafeMutableBufferPointer<Float>
    /// Tokens the penalties look at: any seed history, then every token drawn so far.
    public internal(set) var history: [Int]
    /// Tokens drawn so far in this utterance (the count minimum lengths are measured in).
    public internal(set) var generated = 0
    /// The random source draws use.
    public var random: SeededRandom
    /// The drawn token, set by the draw step.
    public var token: Int?
    /// Where the steps note their draw's margins, when a test measures them (`DrawMarginLog`, aimed perturbation).
    var analysis: DrawAnalysis?

    /// Whether every token is still a candidate.
    public internal(set) var allCandidates = true
    /// The candidates when not all are: indices into the logits.
    public internal(set) var candidates: [Int]
    /// Whether `candidates` are ordered most likely first (ties by index), as top-k leaves them.
    var candidatesSorted = false

    // Softmax buffers, reused: exp(logit - top) per token, their sums per block of 128, and the total of
    // the last computation (every token's, or the candidates' of that moment; draws only need ratios).
    var weights: [Float]
    var blocks: [Double]
    var total = 0.0
    /// Whether `weights` hold the current candidates' values (narrowing candidates keeps them valid).
    var candidateWeights = false
    /// Whether `weights` and `blocks` hold every token's values.
    var everyTokenWeights = false

    // Scratch of the grouped top-k selection and of the penalty's seen-set.
    var groupMaxima: [Float]
    var largestMaxima: [Float]
    var seen: [UInt64]

    /// State for a vocabulary of `vocabularySize` logits, a history that starts with `history` and grows to
    /// at most `longest` more tokens, drawing from `random`.
    public init(vocabularySize: Int, history: [Int] = [], longest: Int = 0, random: SeededRandom) {
        logits = UnsafeMutableBufferPointer(start: nil, count: 0)
        self.history = history
        self.history.reserveCapacity(history.count + longest)
        self.random = random
        candidates = []
        candidates.reserveCapacity(vocabularySize + 1)
        weights = [Float](repeating: 0, count: vocabularySize)
        blocks = [Double](repeating: 0, count: TokenDistribution.blockCount(vocabularySize))
        groupMaxima = [Float](repeating: 0, count: vocabularySize / LikelyTokens.group + 1)
        largestMaxima = []
        largestMaxima.reserveCapacity(vocabularySize / LikelyTokens.group + 2)
        seen = [UInt64](repeating: 0, count: vocabularySize / 64 + 1)
    }

    /// Starts a new token over `logits`; buffers grow (once) when they are longer than the vocabulary the
    /// state was made for, so a model whose vocabulary is only known from its first logits needs no guess.
    mutating func begin(_ logits: UnsafeMutableBufferPointer<Float>) {
        if logits.count > weights.count { grow(to: logits.count) }
        self.logits = logits
        allCandidates = true
        candidates.removeAll(keepingCapacity: true)
        candidatesSorted = false
        candidateWeights = false
        everyTokenWeights = false
        token = nil
    }

    private mutating func grow(to vocabularySize: Int) {
        candidates.reserveCapacity(vocabularySize + 1)
        weights = [Float](repeating: 0, count: vocabularySize)
        blocks = [Double](repeating: 0, count: TokenDistribution.blockCount(vocabularySize))
        groupMaxima = [Float](repeating: 0, count: vocabularySize / LikelyTokens.group + 1)
        largestMaxima.reserveCapacity(vocabularySize / LikelyTokens.group + 2)
        seen = [UInt64](repeating: 0, count: vocabularySize / 64 + 1)
    }

    /// Records a drawn token.
    mutating func accept(_ token: Int) {
        history.append(token)
        generated += 1
    }

    /// Call after changing logits: probabilities must be computed again, and the order may have changed.
    public mutating func logitsChanged() {
        candidateWeights = false
        everyTokenWeights = false
        candidatesSorted = false
    }

    /// Keeps only `kept` of the candidates (indices into the logits), in the order given.
    public mutating func restrict(to kept: some Sequence<Int>) {
        candidates.removeAll(keepingCapacity: true)
        candidates.append(contentsOf: kept)
        allCandidates = false
        candidatesSorted = false
    }

    /// Drops candidates from position `count` on, keeping order (and sortedness).
    mutating func truncateCandidates(to count: Int) {
        if count < candidates.count { candidates.removeLast(candidates.count - count) }
    }

    /// Computes the softmax over every token (weights and block sums), if it is not already there.
    mutating func softmaxOverEveryToken() {
        guard !everyTokenWeights else { return }
        total = weights.withUnsafeMutableBufferPointer { weights in
            blocks.withUnsafeMutableBufferPointer { blocks in
                TokenDistribution.fill(logits: UnsafeBufferPointer(logits), weights: weights, blocks: blocks)
            }
        }
        everyTokenWeights = true
        candidateWeights = true
    }

    /// Computes the weights of the candidates at least (every token's when all are candidates).
    mutating func softmaxOverCandidates() {
        if allCandidates { return softmaxOverEveryToken() }
        guard !candidateWeights else { return }
        var top = -Float.infinity
        for index in candidates { top = max(top, logits[index]) }
        var sum = 0.0
        for index in candidates {
            let weight = TokenDistribution.exponential(logits[index] - top)
            weights[index] = weight
            sum += Double(weight)
        }
        total = sum
        candidateWeights = true
    }

    /// A candidate's unnormalised probability (valid after a softmax call).
    func weight(_ token: Int) -> Double { Double(weights[token]) }

    /// The candidates ordered most likely first (ties by index), sorted in place if a step disturbed the order.
    mutating func sortCandidates() {
        if allCandidates {
            LikelyTokens.select(in: &self, limit: logits.count)
            allCandidates = false
            candidatesSorted = true
            return
        }
        guard !candidatesSorted else { return }
        // Insertion sort: candidate lists are short, and it needs no scratch.
        for position in candidates.indices.dropFirst() {
            let moving = candidates[position]
            var hole = position
            while hole > 0, Self.ranksBefore(moving, candidates[hole - 1], logits) {
                candidates[hole] = candidates[hole - 1]
                hole -= 1
            }
            candidates[hole] = moving
        }
        candidatesSorted = true
    }

    static func ranksBefore(_ a: Int, _ b: Int, _ logits: UnsafeMutableBufferPointer<Float>) -> Bool {
        logits[a] != logits[b] ? logits[a] > logits[b] : a < b
    }
}

/// Why a token could not be drawn.
public enum SamplingError: Error, Equatable, CustomStringConvertible {
    /// The step list has no draw step, so no token was chosen.
    case noDraw

    public var description: String {
        switch self {
        case .noDraw:
            return "The sampling steps chose no token; end the list with a draw step (CategoricalDraw, GreedyDraw or RepetitionAwareDraw)."
        }
    }
}
