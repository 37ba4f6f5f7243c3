/// A binary min-heap: `pop` returns the smallest element, and among equal elements no order is
/// promised, so callers that need one (leftmost first) put it in their element's `<`.
///
/// The BPE and SentencePiece merge loops both take their next merge from one.
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    /// Empties the heap and keeps its storage for the next use.
    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ item: Element) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < items.count else { break }
                let right = left + 1
                let smaller = right < items.count && items[right] < items[left] ? right : left
                guard items[smaller] < items[parent] else { break }
                items.swapAt(smaller, parent)
                parent = smaller
            }
        }
        return top
    }
}
