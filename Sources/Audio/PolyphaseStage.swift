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

    /// Resamples the next chunk; returns every output whose window the input so far covers. Outputs whose
    /// window starts in the kept input read a joined copy of it and the start of `samples`; the others read
    /// `samples` in place. The result has room for at least `minimumCapacity` values.
    mutating func process(_ samples: [Float], minimumCapacity: Int = 0) -> [Float] {
        let taps = filter.taps, up = filter.up, down = filter.down
        let kept = buffer.count
        let total = kept + samples.count
        // Output k sits at `start + k * down` in units of 1 / up input; its window (from the whole input
        // sample at or before it) must end within the input.
        let start = nextIndex * up + nextPhase
        let last = (total - taps + 1) * up - 1
        guard last >= start else {
            buffer += samples
            return [Float](unsafeUninitializedCapacity: minimumCapacity) { _, count in count = 0 }
        }
        let count = (last - start) / down + 1
        let joined = min(count, max(0, (kept * up - start + down - 1) / down))
        let output = [Float](unsafeUninitializedCapacity: max(count, minimumCapacity)) { out, initialized in
            if joined > 0 {
                let head = buffer + samples.prefix(taps)
                head.withUnsafeBufferPointer { head in
                    filterOutputs(head.baseAddress!, from: start, count: joined, into: out.baseAddress!)
                }
            }
            if count > joined {
                samples.withUnsafeBufferPointer { input in
                    filterOutputs(input.baseAddress!, from: start + joined * down - kept * up, count: count - joined,
                                  into: out.baseAddress! + joined)
                }
            }
            initialized = count
        }
        // Keep only the inputs a future output can still reach.
        let end = start + count * down
        let consumed = min(end / up, total)
        buffer = consumed >= kept ? Array(samples[(consumed - kept)...]) : Array(buffer[consumed...]) + samples
        nextIndex = end / up - consumed
        nextPhase = end % up
        emitted += count
        return output
    }

    /// Flushes with zeros until at least `total` outputs have been returned in all (no more than `total`
    /// unless `process` already returned more), then resets.
    mutating func finish(total: Int) -> [Float] {
        defer { reset() }
        var tail: [Float] = []
        while emitted < total {
            // Enough zeros for the remaining outputs' windows.
            let positions = (total - emitted) * filter.down / filter.up + 2
            tail += process([Float](repeating: 0, count: filter.taps + positions))
        }
        tail.removeLast(min(tail.count, emitted - total))
        return tail
    }

    /// Computes `count` outputs, the first at `position / up` in `input` (whose window starts there).
    private func filterOutputs(
        _ input: UnsafePointer<Float>, from position: Int, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        let taps = filter.taps, up = filter.up
        let step = filter.down / up, phaseStep = filter.down % up
        var index = position / up
        var phase = position % up
        filter.coefficients.withUnsafeBufferPointer { bank in
            let bank = bank.baseAddress!
            if filter.exact {
                for k in 0..<count {
                    out[k] = Self.dot(input + index, bank + phase * taps, taps)
                    index += step
                    phase += phaseStep
                    if phase >= up { phase -= up; index += 1 }
                }
            } else {
                for k in 0..<count {
                    let position = Double(phase) * Double(ResamplingFilter.tableRows) / Double(up)
                    let row = Int(position)
                    let weight = Float(position - Double(row))
                    let lower = Self.dot(input + index, bank + row * taps, taps)
                    let upper = Self.dot(input + index, bank + (row + 1) * taps, taps)
                    out[k] = lower + weight * (upper - lower)
                    index += step
                    phase += phaseStep
                    if phase >= up { phase -= up; index += 1 }
                }
            }
        }
    }

    /// Dot product of `count` (a multiple of 8) values in a fixed order, independent of where the window
    /// starts, so chunking never changes bits. Four `SIMD4` sums (the register width of SSE and NEON) keep
    /// the additions independent; the lanes are added as a tree.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        @inline(__always) func product(_ offset: Int) -> SIMD4<Float> {
            UnsafeRawPointer(a + offset).loadUnaligned(as: SIMD4<Float>.self)
                * UnsafeRawPointer(b + offset).loadUnaligned(as: SIMD4<Float>.self)
        }
        var acc0 = SIMD4<Float>(), acc1 = SIMD4<Float>(), acc2 = SIMD4<Float>(), acc3 = SIMD4<Float>()
        var i = 0
        while i + 16 <= count {
            acc0 += product(i)
            acc1 += product(i + 4)
            acc2 += product(i + 8)
            acc3 += product(i + 12)
            i += 16
        }
        if i < count {
            acc0 += product(i)
            acc1 += product(i + 4)
        }
        let sum = (acc0 + acc1) + (acc2 + acc3)
        return (sum[0] + sum[2]) + (sum[1] + sum[3])
    }
}
