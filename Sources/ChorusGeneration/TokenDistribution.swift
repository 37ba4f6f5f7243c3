/// The softmax of one step's logits as sampling needs it: exp(logit - top) for every token, summed over
/// blocks of 128 tokens and in total, so a draw over the whole vocabulary walks block sums, not tokens.
///
/// Probabilities are float32 exponentials (as torch's softmax) summed in float64; a float64 softmax (the
/// Python references) differs by about 1e-7 relative, far below any draw's margin.
enum TokenDistribution {
    static let blockSize = 128

    /// Blocks needed for `count` tokens.
    static func blockCount(_ count: Int) -> Int { count / blockSize + 2 }

    /// Writes every token's weight into `weights` and the block sums into `blocks`; returns the total.
    static func fill(logits: UnsafeBufferPointer<Float>, weights: UnsafeMutableBufferPointer<Float>,
                     blocks: UnsafeMutableBufferPointer<Double>) -> Double {
        let count = logits.count
        blocks.update(repeating: 0)
        guard count > 0, let source = logits.baseAddress.map(UnsafeRawPointer.init),
              let target = weights.baseAddress.map(UnsafeMutableRawPointer.init)
        else { return 0 }
        let top = maximum(logits)
        let shift = SIMD8<Float>(repeating: top)
        var sum = 0.0
        var index = 0
        var block = 0
        let vectorEnd = count - count % 8
        while index < vectorEnd {
            // Lanes add up to 16 terms (each at most 1) in float32, then lanes and blocks in float64.
            var lanes = SIMD8<Float>()
            let blockEnd = min(vectorEnd, index + blockSize)
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
        return sum
    }

    /// The largest logit (NaNs ignored; -inf when all are).
    static func maximum(_ logits: UnsafeBufferPointer<Float>) -> Float {
        var top = -Float.infinity
        for value in logits where value > top { top = value }
        return top
    }

    /// e^x for one x <= 0, with exactly the arithmetic of the vector lanes.
    static func exponential(_ x: Float) -> Float {
        SIMD8<Float>(repeating: x).exponential()[0]
    }

    /// A draw over every token with the weights and block sums of `fill`, `excluding` one token's weight
    /// (-1 for none): one uniform scaled to the total, found by walking the block sums, then one block's tokens.
    static func draw(weights: UnsafeBufferPointer<Float>, blocks: UnsafeBufferPointer<Double>, total: Double,
                     excluding excluded: Int = -1, uniform: Double) -> Int {
        let count = weights.count
        let vectorEnd = count - count % 8
        let excludedWeight = excluded >= 0 ? Double(weights[excluded]) : 0
        let target = uniform * (total - excludedWeight)
        var running = 0.0
        var start = 0
        for block in blocks.indices {
            let end = min(start + blockSize, vectorEnd)
            let blockEnd = end > start ? end : count
            var blockSum = blocks[block]
            if (start..<blockEnd).contains(excluded) { blockSum -= excludedWeight }
            if target < running + blockSum {
                var inner = running
                var last = start
                for token in start..<blockEnd where token != excluded {
                    inner += Double(weights[token])
                    last = token
                    if target < inner { return token }
                }
                return last
            }
            running += blockSum
            start = blockEnd
            if start >= count { break }
        }
        return count - 1 == excluded ? count - 2 : count - 1
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
