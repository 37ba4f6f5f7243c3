/// The most likely tokens of a logits row, found by partial selection (never a sort of the vocabulary).
enum LikelyTokens {
    /// Logits per group whose maximum is taken on vector lanes.
    static let group = 32

    /// The `limit` largest logits' indices, largest first, into `best`; equal logits keep index order.
    ///
    /// The logits are read in groups of 32 whose maxima are found on vector lanes; the `limit`-th
    /// largest group maximum is a bound no kept logit can be below (that many groups each hold a logit
    /// at least that large), so only the few groups reaching it are looked at token by token. The group
    /// maxima and the running selection live in `state`'s scratch, so nothing is allocated.
    static func select(in state: inout SamplingState, limit: Int) {
        // Moved out and back so each array is uniquely held while it changes (no copy on write).
        var maxima = state.groupMaxima, largest = state.largestMaxima, best = state.candidates
        (state.groupMaxima, state.largestMaxima, state.candidates) = ([], [], [])
        select(UnsafeBufferPointer(state.logits), limit: limit, into: &best, maxima: &maxima, largest: &largest)
        (state.groupMaxima, state.largestMaxima, state.candidates) = (maxima, largest, best)
    }

    /// `select` with scratch of its own, for callers outside a sampling state.
    static func select(_ logits: UnsafeBufferPointer<Float>, limit: Int, into best: inout [Int]) {
        var maxima = [Float](repeating: 0, count: logits.count / group + 1)
        var largest: [Float] = []
        select(logits, limit: limit, into: &best, maxima: &maxima, largest: &largest)
    }

    static func select(_ logits: UnsafeBufferPointer<Float>, limit: Int, into best: inout [Int],
                       maxima: inout [Float], largest: inout [Float]) {
        best.removeAll(keepingCapacity: true)
        guard limit > 0, let base = logits.baseAddress else { return }
        let count = logits.count
        let groups = count / group
        if groups > limit {
            let raw = UnsafeRawPointer(base)
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
            largest.removeAll(keepingCapacity: true)
            for index in 0..<groups {
                let value = maxima[index]
                guard largest.count < limit || value > largest[limit - 1] else { continue }
                var position = largest.count
                while position > 0, largest[position - 1] < value { position -= 1 }
                largest.insert(value, at: position)
                if largest.count > limit { largest.removeLast() }
            }
            let bound = largest[limit - 1]
            for index in 0..<groups where maxima[index] >= bound {
                for candidate in (group * index)..<(group * (index + 1)) where logits[candidate] >= bound {
                    insert(candidate, logits, limit: limit, into: &best)
                }
            }
            for candidate in (group * groups)..<count where logits[candidate] >= bound {
                insert(candidate, logits, limit: limit, into: &best)
            }
        }
        if best.isEmpty, limit > wideLimit, limit < count, selectWide(logits, limit: limit, into: &best, scratch: &largest) {
            return
        }
        if best.isEmpty {
            // Few logits, or NaNs that left no usable bound: every one is looked at.
            for candidate in 0..<count { insert(candidate, logits, limit: limit, into: &best) }
        }
    }

    /// Above this many kept tokens (Chatterbox's top-k 1000), inserting every logit into a sorted list costs
    /// `count x limit`; a selection of the `limit`-th largest value and one sort of what reaches it is cheaper.
    static let wideLimit = 64

    /// `select` for a large `limit`: the `limit`-th largest logit by quickselect on a copy in `scratch`, the
    /// indices above it and then those equal to it in index order up to `limit`, sorted largest first (ties
    /// by index). Returns false, leaving `best` empty, when a logit is NaN.
    private static func selectWide(_ logits: UnsafeBufferPointer<Float>, limit: Int, into best: inout [Int],
                                   scratch: inout [Float]) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: logits)
        guard !scratch.contains(where: \.isNaN) else { return false }
        let bound = scratch.withUnsafeMutableBufferPointer { nthLargest($0, rank: limit - 1) }
        for candidate in 0..<logits.count where logits[candidate] > bound { best.append(candidate) }
        for candidate in 0..<logits.count where best.count < limit && logits[candidate] == bound { best.append(candidate) }
        best.sort { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }
        return true
    }

    /// The value that would sit at `rank` (0 = largest) if `values` were sorted descending; reorders `values`.
    private static func nthLargest(_ values: UnsafeMutableBufferPointer<Float>, rank: Int) -> Float {
        var low = 0, high = values.count - 1
        while low < high {
            // Median of three as the pivot, then a three-way partition: larger, equal, smaller.
            let middle = low + (high - low) / 2
            let pivot = max(min(values[low], values[middle]), min(max(values[low], values[middle]), values[high]))
            var larger = low, index = low, smaller = high
            while index <= smaller {
                if values[index] > pivot {
                    values.swapAt(larger, index)
                    larger += 1
                    index += 1
                } else if values[index] < pivot {
                    values.swapAt(index, smaller)
                    smaller -= 1
                } else {
                    index += 1
                }
            }
            if rank < larger {
                high = larger - 1
            } else if rank > smaller {
                low = smaller + 1
            } else {
                return pivot
            }
        }
        return values[low]
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
