import Testing
@testable import ChorusText

@Suite struct MinHeapTests {
    @Test func popsInAscendingOrder() {
        var heap = MinHeap<Int>()
        let values = [5, 3, 9, 1, 3, 7, 0, 8, 2, 6, 4, 1, 12, 10, 11]
        for value in values { heap.push(value) }
        var popped: [Int] = []
        while let value = heap.pop() { popped.append(value) }
        #expect(popped == values.sorted())
        #expect(heap.pop() == nil)
    }

    @Test func pushesBetweenPopsKeepTheOrder() {
        var heap = MinHeap<Int>()
        for value in [4, 8, 6] { heap.push(value) }
        #expect(heap.pop() == 4)
        heap.push(5)
        heap.push(9)
        #expect(heap.pop() == 5)
        #expect(heap.pop() == 6)
        heap.removeAll()
        #expect(heap.pop() == nil)
        heap.push(1)
        #expect(heap.pop() == 1)
    }

    @Test func mergeCandidatesOrderByRankThenLeftmost() {
        var heap = MinHeap<MergeCandidate>()
        for (rank, position) in [(3, 0), (2, 7), (2, 1), (9, 2), (2, 4)] as [(Int32, Int32)] {
            heap.push(MergeCandidate(rank: rank, position: position))
        }
        var order: [[Int32]] = []
        while let candidate = heap.pop() { order.append([candidate.rank, candidate.position]) }
        #expect(order == [[2, 1], [2, 4], [2, 7], [3, 0], [9, 2]])
    }
}
