extension WeightedFST {
    /// The composed states a search makes before it gives up (about 60 bytes each, with their arcs).
    public static let defaultMaximumSearchStates = 2_000_000

    /// The output bytes of the cheapest path that reads `input`, as kaldifst's `TextNormalizer` computes
    /// it: compose a linear byte acceptor with this graph, take OpenFst's single shortest path, and
    /// concatenate its non-epsilon output labels.
    ///
    /// Equal-cost paths are broken exactly as OpenFst does, which is what makes the outputs match:
    /// see `BestPathSearch`.
    ///
    /// The search holds every composed state it reaches (about 60 bytes each), so it stops with
    /// `WeightedFSTError.searchTooLarge` once it has made `maximumStates` of them: memory and time stay
    /// bounded whatever the input, which a caller keeps short enough never to meet the bound.
    public func bestOutput(for input: [UInt8], maximumStates: Int = WeightedFST.defaultMaximumSearchStates) throws -> [UInt8] {
        try search(input, maximumStates: maximumStates).output
    }

    /// `bestOutput(for:)` and the composed states the search made: the measure of its memory and time.
    package func search(_ input: [UInt8], maximumStates: Int = WeightedFST.defaultMaximumSearchStates) throws
        -> (output: [UInt8], states: Int) {
        var pass = BestPathSearch(fst: self, input: input, maximumStates: maximumStates)
        let output = try pass.run()
        return (output, pass.stateCount)
    }

    /// `bestOutput(for:)` on the UTF-8 bytes of `text`; the output is decoded as UTF-8.
    public func bestOutput(for text: String, maximumStates: Int = WeightedFST.defaultMaximumSearchStates) throws -> String {
        String(decoding: try bestOutput(for: Array(text.utf8), maximumStates: maximumStates), as: UTF8.self)
    }
}

/// One-best search over the composition of a byte string with a `WeightedFST`, done lazily, in the
/// order OpenFst's `Compose` + `ShortestPath(n = 1)` visit it.
///
/// Why each step is the way it is (OpenFst 1.8, the library behind kaldifst):
/// - Composition with the default sequence filter and sorted matchers gives, for the pair (input
///   position, graph state), the graph's arcs in file order whose input label is epsilon (the string
///   stays) or the next byte (both advance). The string has no epsilons, so there is one filter state.
/// - `ShortestPath` picks its queue with `AutoQueue`: the composed graph is not known to be acyclic
///   (the grammars are closures), so it splits it into strongly connected components after `Connect`
///   removed the states that reach no final state. If every remaining arc weighs 0 (or infinity) it
///   uses a LIFO queue; otherwise, all components being single states, the topological order of a
///   depth-first search that follows arcs in order.
/// - Relaxation replaces a distance only when strictly smaller (tropical `Plus` keeps the first of two
///   equals), so of two equal paths the one relaxed first wins; the same holds for final states.
/// - Weights are float32 sums, added in the same order.
struct BestPathSearch {
    let fst: WeightedFST
    let input: [UInt8]
    let maximumStates: Int

    /// Composed state -> (input position, graph state).
    private var positions: [Int32] = []
    private var graphStates: [Int32] = []
    private var ids: [UInt64: Int32] = [:]
    /// Composed arcs of state `c`: `arcFirst[c] ..< arcEnd[c]` into `arcTargets` / `arcGraphArcs`.
    private var arcFirst: [Int32] = []
    private var arcEnd: [Int32] = []
    private var arcTargets: [Int32] = []
    /// The graph arc each composed arc came from (its weight and output label).
    private var arcGraphArcs: [Int32] = []

    init(fst: WeightedFST, input: [UInt8], maximumStates: Int) {
        self.fst = fst
        self.input = input
        self.maximumStates = maximumStates
    }

    /// Composed states made so far.
    var stateCount: Int { positions.count }

    private mutating func stateID(position: Int32, graphState: Int32) throws -> Int32 {
        let key = UInt64(UInt32(position)) << 32 | UInt64(UInt32(graphState))
        if let id = ids[key] { return id }
        guard positions.count < maximumStates else {
            throw WeightedFSTError.searchTooLarge(path: fst.name, inputBytes: input.count, states: maximumStates)
        }
        let id = Int32(positions.count)
        ids[key] = id
        positions.append(position)
        graphStates.append(graphState)
        arcFirst.append(-1)
        arcEnd.append(-1)
        return id
    }

    private func finalWeight(_ state: Int32) -> Float {
        Int(positions[Int(state)]) == input.count ? fst.finals[Int(graphStates[Int(state)])] : .infinity
    }

    /// Creates the composed arcs of `state`, in the order composition creates them.
    private mutating func expand(_ state: Int32) throws {
        let position = positions[Int(state)]
        let graphState = Int(graphStates[Int(state)])
        let first = Int(fst.arcStart[graphState]), end = Int(fst.arcStart[graphState + 1])
        arcFirst[Int(state)] = Int32(arcTargets.count)
        let byte: Int32? = Int(position) < input.count ? Int32(input[Int(position)]) : nil
        if fst.inputLabelSorted {
            var arc = first
            while arc < end, fst.inputLabels[arc] == 0 {
                addArc(arc, target: try stateID(position: position, graphState: fst.targets[arc]))
                arc += 1
            }
            if let byte {
                // Lower bound of `byte` among the labelled arcs, then its run.
                var low = arc, high = end
                while low < high {
                    let middle = (low + high) / 2
                    if fst.inputLabels[middle] < byte { low = middle + 1 } else { high = middle }
                }
                while low < end, fst.inputLabels[low] == byte {
                    addArc(low, target: try stateID(position: position + 1, graphState: fst.targets[low]))
                    low += 1
                }
            }
        } else {
            for arc in first..<end {
                let label = fst.inputLabels[arc]
                if label == 0 {
                    addArc(arc, target: try stateID(position: position, graphState: fst.targets[arc]))
                } else if label == byte {
                    addArc(arc, target: try stateID(position: position + 1, graphState: fst.targets[arc]))
                }
            }
        }
        arcEnd[Int(state)] = Int32(arcTargets.count)
    }

    private mutating func addArc(_ graphArc: Int, target: Int32) {
        arcTargets.append(target)
        arcGraphArcs.append(Int32(graphArc))
    }

    mutating func run() throws -> [UInt8] {
        guard fst.start >= 0 else { throw WeightedFSTError.noPath(path: fst.name, input: describedInput) }
        let start = try stateID(position: 0, graphState: fst.start)

        // Depth-first search in arc order: postorder, cycles, and which states reach a final state.
        var color: [UInt8] = [1]  // 0 unvisited, 1 on the stack, 2 finished
        var cursor: [Int32] = [0]
        var live: [Bool] = [false]
        var postorder: [Int32] = []
        var cyclic = false
        try expand(start)
        cursor[0] = arcFirst[0]
        var stack: [Int32] = [start]
        while let top = stack.last {
            let s = Int(top)
            if cursor[s] < arcEnd[s] {
                let target = arcTargets[Int(cursor[s])]
                cursor[s] += 1
                if Int(target) >= color.count {
                    color.append(contentsOf: repeatElement(0, count: Int(target) + 1 - color.count))
                }
                switch color[Int(target)] {
                case 0:
                    color[Int(target)] = 1
                    try expand(target)
                    if cursor.count < positions.count {
                        cursor.append(contentsOf: repeatElement(0, count: positions.count - cursor.count))
                    }
                    cursor[Int(target)] = arcFirst[Int(target)]
                    stack.append(target)
                case 1:
                    cyclic = true
                default:
                    break
                }
            } else {
                stack.removeLast()
                color[s] = 2
                if live.count < positions.count {
                    live.append(contentsOf: repeatElement(false, count: positions.count - live.count))
                }
                var reaches = finalWeight(top) != .infinity
                var arc = Int(arcFirst[s])
                while !reaches, arc < Int(arcEnd[s]) {
                    let target = Int(arcTargets[arc])
                    reaches = target < live.count && live[target]
                    arc += 1
                }
                live[s] = reaches
                postorder.append(top)
            }
        }
        guard live[Int(start)] else { throw WeightedFSTError.noPath(path: fst.name, input: describedInput) }
        if live.count < positions.count {
            live.append(contentsOf: repeatElement(false, count: positions.count - live.count))
        }

        // `Connect` keeps only live states; the queue choice looks at the arcs between them.
        var unweighted = true
        for s in 0..<positions.count where live[s] {
            for arc in Int(arcFirst[s])..<Int(arcEnd[s]) where live[Int(arcTargets[arc])] {
                let weight = fst.weights[Int(arcGraphArcs[arc])]
                if weight != 0 && weight != .infinity { unweighted = false; break }
            }
            if !unweighted { break }
        }
        if !unweighted && cyclic { throw WeightedFSTError.cyclicComposition(path: fst.name) }

        var distance = [Float](repeating: .infinity, count: positions.count)
        var parentArc = [Int32](repeating: -1, count: positions.count)
        var parentState = [Int32](repeating: -1, count: positions.count)
        var finalDistance = Float.infinity
        var finalParent: Int32 = -1
        distance[Int(start)] = 0

        func relax(_ s: Int32, enqueue: (Int32) -> Void) {
            let sd = distance[Int(s)]
            let final = Self.times(sd, finalWeight(s))
            if final < finalDistance {
                finalDistance = final
                finalParent = s
            }
            for arc in Int(arcFirst[Int(s)])..<Int(arcEnd[Int(s)]) {
                let target = Int(arcTargets[arc])
                guard live[target] else { continue }
                let weight = Self.times(sd, fst.weights[Int(arcGraphArcs[arc])])
                if weight < distance[target] {
                    distance[target] = weight
                    parentArc[target] = arcGraphArcs[arc]
                    parentState[target] = s
                    enqueue(Int32(target))
                }
            }
        }

        if unweighted {
            // LIFO queue; a state already waiting is not pushed again.
            var queued = [Bool](repeating: false, count: positions.count)
            var lifo: [Int32] = [start]
            queued[Int(start)] = true
            while let s = lifo.popLast() {
                queued[Int(s)] = false
                relax(s) { target in
                    if !queued[Int(target)] {
                        queued[Int(target)] = true
                        lifo.append(target)
                    }
                }
            }
        } else {
            for s in postorder.reversed() where live[Int(s)] && distance[Int(s)] != .infinity {
                relax(s) { _ in }
            }
        }
        guard finalParent >= 0 else { throw WeightedFSTError.noPath(path: fst.name, input: describedInput) }

        var labels: [UInt8] = []
        var s = finalParent
        while s != start {
            let arc = Int(parentArc[Int(s)])
            let label = fst.outputLabels[arc]
            // OpenFst's byte string printer skips epsilons and keeps the low byte of each label.
            if label != 0 { labels.append(UInt8(truncatingIfNeeded: label)) }
            s = parentState[Int(s)]
        }
        return labels.reversed()
    }

    /// Tropical `Times`: float addition, with infinity (the semiring's zero) absorbing.
    @inline(__always)
    static func times(_ a: Float, _ b: Float) -> Float {
        a == .infinity || b == .infinity ? .infinity : a + b
    }

    private var describedInput: String { String(decoding: input, as: UTF8.self) }
}
