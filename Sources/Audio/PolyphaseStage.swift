/// A direct polyphase stage of `StreamingResampler`: each output is the dot product of the inputs around its
/// position with one row of a `ResamplingFilter` bank. Each output depends only on the absolute input positions
/// around it, so chunking never changes bits. The output is aligned with the input: no delay is added.
struct PolyphaseStage: Sendable {
    let filter: ResamplingFilter

    /// Input not yet fully used; `buffer[0]` is input position `bufferStart`.
    private var buffer: [Float] = []
    /// Next output's position in the input: `nextIndex + nextPhase / filter.up`, `nextIndex` relative to `buffer`.
    private var nextIndex = 0
    private var nextPhase = 0
    /// Outputs returned so far.
    private(set) var emitted = 0

    init(filter: ResamplingFilter) {
        self.filter = filter
        reset()
    }

    /// Input samples the output lags behind.
    var latency: Int { filter.taps / 2 }

    mutating func reset() {
        // Half a filter of silence before the first input lets output 0 see inputs -taps/2+1 ... taps/2.
        buffer = [Float](repeating: 0, count: filter.taps / 2 - 1)
        nextIndex = 0
        nextPhase = 0
        emitted = 0
    }

    mutating func process(_ samples: [Float]) -> [Float] {
        buffer += samples
        return drain()
    }

    /// Flushes with zeros until at least `total` outputs have been returned in all (no more than `total`
    /// unless `process` already returned more), then resets.
    mutating func finish(total: Int) -> [Float] {
        defer { reset() }
        var tail: [Float] = []
        while emitted < total {
            // Enough zeros for the remaining outputs' windows.
            let positions = (total - emitted) * filter.down / filter.up + 2
            buffer += [Float](repeating: 0, count: filter.taps + positions)
            tail += drain()
        }
        tail.removeLast(min(tail.count, emitted - total))
        return tail
    }

    private mutating func drain() -> [Float] {
        let taps = filter.taps
        guard buffer.count >= taps + nextIndex else { return [] }
        let available = buffer.count - taps
        // Outputs whose window fits: count how many before computing, to allocate once.
        var count = 0
        var endIndex = nextIndex
        var endPhase = nextPhase
        let up = filter.up
        let down = filter.down
        let step = down / up
        let phaseStep = down % up
        while endIndex <= available {
            count += 1
            endIndex += step
            endPhase += phaseStep
            if endPhase >= up { endPhase -= up; endIndex += 1 }
        }
        let exact = filter.exact
        let output = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            var index = nextIndex
            var phase = nextPhase
            buffer.withUnsafeBufferPointer { input in
                filter.coefficients.withUnsafeBufferPointer { bank in
                    let inputBase = input.baseAddress!
                    let bankBase = bank.baseAddress!
                    for k in 0..<count {
                        let window = inputBase + index
                        if exact {
                            out[k] = Self.dot(window, bankBase + phase * taps, taps)
                        } else {
                            let position = Double(phase) * Double(ResamplingFilter.tableRows) / Double(up)
                            let row = Int(position)
                            let weight = Float(position - Double(row))
                            let lower = Self.dot(window, bankBase + row * taps, taps)
                            let upper = Self.dot(window, bankBase + (row + 1) * taps, taps)
                            out[k] = lower + weight * (upper - lower)
                        }
                        index += step
                        phase += phaseStep
                        if phase >= up { phase -= up; index += 1 }
                    }
                }
            }
            initialized = count
        }
        // Keep only the inputs a future output can still reach.
        let consumed = min(endIndex, buffer.count)
        buffer.removeFirst(consumed)
        nextIndex = endIndex - consumed
        nextPhase = endPhase
        emitted += count
        return output
    }

    /// Dot product of `count` (a multiple of 8) values in a fixed order, independent of where the window
    /// starts, so chunking never changes bits.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var acc0 = SIMD8<Float>()
        var acc1 = SIMD8<Float>()
        var i = 0
        let rawA = UnsafeRawPointer(a)
        let rawB = UnsafeRawPointer(b)
        while i + 16 <= count {
            acc0 += rawA.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            acc1 += rawA.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self)
            i += 16
        }
        if i < count {
            acc0 += rawA.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
        }
        return (acc0 + acc1).sum()
    }
}
