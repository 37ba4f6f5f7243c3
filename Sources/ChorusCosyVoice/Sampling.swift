/// How the next speech token is chosen from the decoder's distribution.
public enum Sampling: Sendable, Equatable {
    /// Repetition-aware sampling (VALL-E 2, upstream `ras_sampling`): a nucleus draw (top-p, at most
    /// top-k), redrawn from the whole distribution when the token already occurs `window x tauR`
    /// times or more among the last `window` tokens.
    case repetitionAware(topP: Double, topK: Int, window: Int, tauR: Double)
    /// A draw among the `k` most likely tokens.
    case topK(Int)
    /// The most likely token, no randomness.
    case greedy

    /// Upstream's configuration: top-p 0.8, top-k 25, window 10, tau_r 0.1.
    public static let upstream = Sampling.repetitionAware(topP: 0.8, topK: 25, window: 10, tauR: 0.1)

    /// One token drawn from the softmax of `logits`, given the tokens generated so far.
    public func draw(logits: [Float], history: [Int], random: inout SeededRandom) -> Int {
        var sampler = TokenSampler(vocabularySize: logits.count)
        return logits.withUnsafeBufferPointer { sampler.draw(self, logits: $0, history: history, random: &random) }
    }
}

/// Draws tokens from decoder logits with buffers made once per utterance, so a decode step allocates nothing.
///
/// The softmax is computed only as far as a draw needs it: the largest logit, the normaliser, and the
/// probabilities of the few most likely tokens, found by a partial selection (never a sort of the vocabulary).
/// Probabilities are float32 exponentials (as upstream's torch softmax) summed in float64; the Python
/// reference computes them in float64, which differs by about 1e-7 relative, far below any draw's margin.
struct TokenSampler {
    private var weights: [Float]
    private var blocks: [Double]
    private var best: [Int] = []

    init(vocabularySize: Int) {
        weights = [Float](repeating: 0, count: vocabularySize)
        blocks = [Double](repeating: 0, count: Distribution.blockCount(vocabularySize))
        best.reserveCapacity(64)
    }

    /// One token from the softmax of `logits` by `sampling`, given the tokens generated so far.
    mutating func draw(_ sampling: Sampling, logits: UnsafeBufferPointer<Float>, history: [Int],
                       random: inout SeededRandom) -> Int {
        if weights.count != logits.count {
            weights = [Float](repeating: 0, count: logits.count)
            blocks = [Double](repeating: 0, count: Distribution.blockCount(logits.count))
        }
        switch sampling {
        case .repetitionAware(let topP, let topK, let window, let tauR):
            // The order by probability is the order by logit: exp is increasing.
            Self.mostLikely(logits, limit: topK, into: &best)
            let best = best
            return withBuffers { weights, blocks in
                let distribution = Distribution(logits: logits, top: logits[best[0]], weights: weights, blocks: blocks)
                let token = Self.nucleus(best, distribution, topP: topP, random: &random)
                var repeats = 0
                for previous in history.suffix(window) where previous == token { repeats += 1 }
                if Double(repeats) >= Double(window) * tauR {
                    return distribution.drawAny(random: &random)
                }
                return token
            }
        case .topK(let k):
            Self.mostLikely(logits, limit: k, into: &best)
            let best = best
            return withBuffers { weights, blocks in
                let distribution = Distribution(logits: logits, top: logits[best[0]], weights: weights, blocks: blocks)
                return best[random.categorical(count: best.count) { distribution.probability(best[$0]) }]
            }
        case .greedy:
            Self.mostLikely(logits, limit: 1, into: &best)
            return best.first ?? 0
        }
    }

    private mutating func withBuffers<R>(
        _ body: (UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Double>) -> R
    ) -> R {
        weights.withUnsafeMutableBufferPointer { weights in blocks.withUnsafeMutableBufferPointer { body(weights, $0) } }
    }

    /// upstream `nucleus_sampling` over `best` (the top-k in descending order, ties by index as a stable
    /// sort): keep tokens while the cumulative probability is below `topP`, then draw among them.
    private static func nucleus(_ best: [Int], _ distribution: Distribution, topP: Double,
                                random: inout SeededRandom) -> Int {
        var kept = 0
        var cumulative = 0.0
        while kept < best.count, cumulative < topP {
            cumulative += distribution.probability(best[kept])
            kept += 1
        }
        return best[random.categorical(count: kept) { distribution.probability(best[$0]) }]
    }

    /// The `limit` largest logits' indices, largest first; equal logits keep index order.
    ///
    /// The logits are read in groups of 32 whose maxima are found on vector lanes; the `limit`-th
    /// largest group maximum is a bound no kept logit can be below (that many groups each hold a logit
    /// at least that large), so only the few groups reaching it are looked at token by token.
    static func mostLikely(_ logits: UnsafeBufferPointer<Float>, limit: Int, into best: inout [Int]) {
        best.removeAll(keepingCapacity: true)
        guard limit > 0, let base = logits.baseAddress else { return }
        let count = logits.count
        let group = 32
        let groups = count / group
        var bound = -Float.infinity
        if groups > limit {
            let raw = UnsafeRawPointer(base)
            var maxima = [Float](repeating: 0, count: groups)
            for index in 0..<groups {
                var lanes = raw.loadUnaligned(fromByteOffset: 4 * group * index, as: SIMD8<Float>.self)
                for offset in stride(from: 8, to: group, by: 8) {
                    let next = raw.loadUnaligned(fromByteOffset: 4 * (group * index + offset), as: SIMD8<Float>.self)
                    lanes.replace(with: next, where: next .> lanes)
                }
                let four = lanes.lowHalf.replacing(with: lanes.highHalf, where: lanes.highHalf .> lanes.lowHalf)
                maxima[index] = max(max(four[0], four[1]), max(four[2], four[3]))
            }
            // The limit-th largest group maximum, by a partial selection of the `limit` largest.
            var largest: [Float] = []
            largest.reserveCapacity(limit + 1)
            for value in maxima where largest.count < limit || value > largest[limit - 1] {
                var position = largest.count
                while position > 0, largest[position - 1] < value { position -= 1 }
                largest.insert(value, at: position)
                if largest.count > limit { largest.removeLast() }
            }
            bound = largest[limit - 1]
            for index in 0..<groups where maxima[index] >= bound {
                for candidate in (group * index)..<(group * (index + 1)) where logits[candidate] >= bound {
                    insert(candidate, logits, limit: limit, into: &best)
                }
            }
            for candidate in (group * groups)..<count where logits[candidate] >= bound {
                insert(candidate, logits, limit: limit, into: &best)
            }
        }
        if best.isEmpty {
            // Few logits, or NaNs that left no usable bound: every one is looked at.
            for candidate in 0..<count { insert(candidate, logits, limit: limit, into: &best) }
        }
    }

    /// Puts `candidate` into `best` (descending, at most `limit`) if it belongs there; candidates come
    /// in index order, so it goes after every kept index with an equal or larger logit.
    private static func insert(_ candidate: Int, _ logits: UnsafeBufferPointer<Float>, limit: Int, into best: inout [Int]) {
        let value = logits[candidate]
        if best.count == limit, !(value > logits[best[limit - 1]]) { return }
        var position = best.count
        while position > 0, logits[best[position - 1]] < value { position -= 1 }
        best.insert(candidate, at: position)
        if best.count > limit { best.removeLast() }
    }
}

/// The softmax of one step's logits, given the largest: exp(logit - top) for every token into
/// `weights`, their sums over blocks of 128 tokens into `blocks`, and the total.
private struct Distribution {
    static let blockSize = 128
    let weights: UnsafeMutableBufferPointer<Float>
    let blocks: UnsafeMutableBufferPointer<Double>
    let total: Double

    /// Blocks needed for `count` tokens.
    static func blockCount(_ count: Int) -> Int { count / blockSize + 2 }

    init(logits: UnsafeBufferPointer<Float>, top: Float, weights: UnsafeMutableBufferPointer<Float>,
         blocks: UnsafeMutableBufferPointer<Double>) {
        self.weights = weights
        self.blocks = blocks
        let count = logits.count
        blocks.update(repeating: 0)
        guard count > 0, let source = logits.baseAddress.map(UnsafeRawPointer.init),
              let target = weights.baseAddress.map(UnsafeMutableRawPointer.init)
        else {
            total = 0
            return
        }
        let shift = SIMD8<Float>(repeating: top)
        var sum = 0.0
        var index = 0
        var block = 0
        let vectorEnd = count - count % 8
        while index < vectorEnd {
            // Lanes add up to 16 terms (each at most 1) in float32, then lanes and blocks in float64.
            var lanes = SIMD8<Float>()
            let blockEnd = min(vectorEnd, index + Self.blockSize)
            while index < blockEnd {
                let e = (source.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self) - shift).exponential()
                target.storeBytes(of: e, toByteOffset: 4 * index, as: SIMD8<Float>.self)
                lanes += e
                index += 8
            }
            var blockSum = 0.0
            for lane in 0..<8 { blockSum += Double(lanes[lane]) }
            blocks[block] = blockSum
            sum += blockSum
            block += 1
        }
        if index < count {
            // The tail through the same lanes, so every token gets the same arithmetic; a block of its own.
            var v = SIMD8<Float>(repeating: 0)
            for lane in 0..<(count - index) { v[lane] = logits[index + lane] - top }
            let e = v.exponential()
            var blockSum = 0.0
            for lane in 0..<(count - index) {
                weights[index + lane] = e[lane]
                blockSum += Double(e[lane])
            }
            blocks[block] = blockSum
            sum += blockSum
        }
        total = sum
    }

    func probability(_ token: Int) -> Double { Double(weights[token]) / total }

    /// upstream's fallback draw over the whole distribution (the repetition rule): one uniform, scaled
    /// to the total weight, found by walking the block sums and then the tokens of one block.
    func drawAny(random: inout SeededRandom) -> Int {
        let target = random.uniform() * total
        var running = 0.0
        var start = 0
        for block in blocks.indices {
            let end = min(start + Self.blockSize, weights.count - weights.count % 8)
            let blockEnd = end > start ? end : weights.count
            if target < running + blocks[block] {
                var inner = running
                for token in start..<blockEnd {
                    inner += Double(weights[token])
                    if target < inner { return token }
                }
                return blockEnd - 1
            }
            running += blocks[block]
            start = blockEnd
            if start >= weights.count { break }
        }
        return weights.count - 1
    }
}

extension SIMD8 where Scalar == Float {
    /// e to the power of each lane, for lanes <= 0 (softmax terms); lanes below -87.3 give 0.
    ///
    /// The Cephes `expf` method: x = n ln 2 + r with |r| <= ln 2 / 2 (ln 2 split in two parts so n ln 2 is
    /// exact), a degree-7 polynomial for e^r, and 2^n built in the exponent bits. About one unit in the
    /// last place of float32; the libm call per token cost more than the decoder's own Run on small models.
    @inline(__always)
    func exponential() -> SIMD8<Float> {
        let x = replacing(with: -87.3, where: self .< -87.3)
        // Round x / ln 2 to an integer by adding 1.5 x 2^23: the integer lands in the low mantissa bits.
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let shifted = x * 1.442_695_04 + magic
        let n = shifted - magic
        let r = x - n * 0.693_359_375 + n * 2.121_944_40e-4
        var p = SIMD8<Float>(repeating: 1.987_569_150_0e-4)
        p = p * r + 1.398_199_950_7e-3
        p = p * r + 8.333_451_907_3e-3
        p = p * r + 4.166_579_589_4e-2
        p = p * r + 1.666_666_545_9e-1
        p = p * r + 5.000_000_120_1e-1
        let polynomial = p * (r * r) + r + 1
        let integer = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: SIMD8<Float>.self)
        return (polynomial * scale).replacing(with: 0, where: self .< -87.3)
    }
}
