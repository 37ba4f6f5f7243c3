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
                // Four outputs at a time share one transpose for their sums; the rest go one by one with the
                // same arithmetic, so grouping (and so chunking) never changes bits.
                var k = 0
                var windows: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
                var rows: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
                func next() -> (UnsafePointer<Float>, UnsafePointer<Float>) {
                    defer {
                        index += step
                        phase += phaseStep
                        if phase >= up { phase -= up; index += 1 }
                    }
                    return (input + index, bank + phase * taps)
                }
                while k + 4 <= count {
                    (windows.0, rows.0) = next()
                    (windows.1, rows.1) = next()
                    (windows.2, rows.2) = next()
                    (windows.3, rows.3) = next()
                    let sums = Self.dot4(windows, rows, taps)
                    UnsafeMutableRawPointer(out + k).storeBytes(of: sums, as: SIMD4<Float>.self)
                    k += 4
                }
                while k < count {
                    let (window, row) = next()
                    out[k] = Self.dot(window, row, taps)
                    k += 1
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

    @inline(__always)
    private static func product(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ offset: Int) -> SIMD4<Float> {
        UnsafeRawPointer(a + offset).loadUnaligned(as: SIMD4<Float>.self)
            * UnsafeRawPointer(b + offset).loadUnaligned(as: SIMD4<Float>.self)
    }

    /// Dot product of `count` (a multiple of 4) values in a fixed order, independent of where the window
    /// starts, so chunking never changes bits: one `SIMD4` sum (the register width of SSE and NEON) over the
    /// runs of 4 in order, then its lanes as `(0 + 1) + (2 + 3)`.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var sum = SIMD4<Float>()
        var i = 0
        while i < count {
            sum += product(a, b, i)
            i += 4
        }
        return (sum[0] + sum[1]) + (sum[2] + sum[3])
    }

    /// Four `dot`s at once, bit for bit: the four sums run side by side (independent chains) and one
    /// transpose adds the lanes of all four.
    @inline(__always)
    static func dot4(
        _ a: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
        _ b: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
        _ count: Int
    ) -> SIMD4<Float> {
        var s0 = SIMD4<Float>(), s1 = SIMD4<Float>(), s2 = SIMD4<Float>(), s3 = SIMD4<Float>()
        var i = 0
        while i < count {
            s0 += product(a.0, b.0, i)
            s1 += product(a.1, b.1, i)
            s2 += product(a.2, b.2, i)
            s3 += product(a.3, b.3, i)
            i += 4
        }
        // Lane k of `low` is s_k[0] + s_k[1], of `high` s_k[2] + s_k[3].
        var lane0 = SIMD4<Float>(), lane1 = SIMD4<Float>(), lane2 = SIMD4<Float>(), lane3 = SIMD4<Float>()
        (lane0.evenHalf, lane0.oddHalf) = (s0.lowHalf, s1.lowHalf)
        (lane1.evenHalf, lane1.oddHalf) = (s2.lowHalf, s3.lowHalf)
        (lane2.evenHalf, lane2.oddHalf) = (s0.highHalf, s1.highHalf)
        (lane3.evenHalf, lane3.oddHalf) = (s2.highHalf, s3.highHalf)
        // lane0 = (s0[0], s1[0], s0[1], s1[1]), lane1 = (s2[0], s3[0], s2[1], s3[1]), lane2/3 the same for 2, 3.
        let first = SIMD4(lowHalf: lane0.lowHalf, highHalf: lane1.lowHalf)   // s0[0], s1[0], s2[0], s3[0]
        let second = SIMD4(lowHalf: lane0.highHalf, highHalf: lane1.highHalf)  // s0[1], s1[1], s2[1], s3[1]
        let third = SIMD4(lowHalf: lane2.lowHalf, highHalf: lane3.lowHalf)
        let fourth = SIMD4(lowHalf: lane2.highHalf, highHalf: lane3.highHalf)
        return (first + second) + (third + fourth)
    }
}
