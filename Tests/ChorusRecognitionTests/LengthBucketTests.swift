import Testing
@testable import ChorusRecognition

@Suite struct LengthBucketTests {
    @Test func picksTheSmallestBucketThatHoldsTheInput() {
        let buckets = LengthBuckets.fastConformer
        #expect(buckets.bucket(for: 1) == 80)
        #expect(buckets.bucket(for: 80) == 80)
        #expect(buckets.bucket(for: 81) == 200)
        #expect(buckets.bucket(for: 4800) == 4800)
        #expect(buckets.bucket(for: 4801) == nil)
        #expect(buckets.validOutputFrames(for: 81) == 11)
        #expect(buckets.validOutputFrames(for: 80) == 10)
    }
}
