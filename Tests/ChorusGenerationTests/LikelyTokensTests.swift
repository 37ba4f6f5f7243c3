import ChorusDSP
import Foundation
import Testing
@testable import ChorusGeneration

@Suite struct LikelyTokensTests {
    @Test func mostLikelyIsAStablePartialSort() {
        func mostLikely(_ logits: [Float], _ limit: Int) -> [Int] {
            var best: [Int] = []
            logits.withUnsafeBufferPointer { LikelyTokens.select($0, limit: limit, into: &best) }
            return best
        }
        #expect(mostLikely([0.2, 0.4, 0.2, 0.4], 4) == [1, 3, 0, 2])
        #expect(mostLikely([0.2, 0.4, 0.2, 0.4, 0.3], 3) == [1, 3, 4])
        // Past the first eight the selection skips eight at a time; ties must still go to the lower index.
        let many = (0..<6761).map { Float(($0 * 37) % 101) }
        let sorted = many.indices.sorted { many[$0] != many[$1] ? many[$0] > many[$1] : $0 < $1 }
        #expect(mostLikely(many, 25) == Array(sorted.prefix(25)))
        let reversed = Array(many.reversed())
        #expect(mostLikely(reversed, 1) == [reversed.firstIndex(of: reversed.max()!)!])
    }

    /// A wide limit (Chatterbox's top-k 1000 of 6563) takes the quickselect path: the same tokens in the same
    /// order as a full stable sort, ties at the cut going to the lower index; NaN logits fall back to insertion.
    @Test func wideLimitsEqualAStableSort() {
        func mostLikely(_ logits: [Float], _ limit: Int) -> [Int] {
            var best: [Int] = []
            logits.withUnsafeBufferPointer { LikelyTokens.select($0, limit: limit, into: &best) }
            return best
        }
        func sorted(_ logits: [Float]) -> [Int] {
            logits.indices.sorted { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }
        }
        var random = SeededRandom(seed: 9)
        let gaussian = (0..<6563).map { _ in Float(random.next() % 100_000) / 1000 - 50 }
        let ties = (0..<6563).map { Float(($0 * 37) % 101) }
        let constant = [Float](repeating: 1.5, count: 3000)
        for logits in [gaussian, ties, constant] {
            for limit in [65, 1000, 2999] {
                #expect(mostLikely(logits, limit) == Array(sorted(logits).prefix(limit)), "limit \(limit)")
            }
        }
        var withNaN = gaussian
        withNaN[17] = .nan
        #expect(mostLikely(withNaN, 1000).count == 1000)
    }

    @Test func vectorExponentialMatchesLibm() {
        var worst = 0.0
        for step in 0...20_000 {
            let x = -87.0 * Float(step) / 20_000
            let e = SIMD8<Float>(repeating: x).exponential()[3]
            worst = max(worst, abs(Double(e) - exp(Double(x))) / exp(Double(x)))
        }
        #expect(worst < 3e-7)
        #expect(SIMD8<Float>(repeating: 0).exponential() == SIMD8(repeating: 1))
        #expect(SIMD8<Float>(repeating: -100).exponential() == SIMD8(repeating: 0))
        #expect(SIMD8<Float>(repeating: -.infinity).exponential() == SIMD8(repeating: 0))
    }

}
