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
