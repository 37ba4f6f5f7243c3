/// Sample-rate conversion of whole buffers; see `StreamingResampler` for the filter and for chunked input.
public enum Resampler {
    /// `samples` at `from` Hz converted to `to` Hz; the result has `ceil(count * to / from)` samples.
    public static func resample(_ samples: [Float], from: Int, to: Int) throws -> [Float] {
        var resampler = try StreamingResampler(inputRate: from, outputRate: to)
        var output = resampler.process(samples)
        output += resampler.finish()
        return output
    }
}

/// A high-quality resampler for any pair of rates that takes its input in chunks of any size.
///
/// The filter is a Kaiser-windowed sinc, flat to 91.5% of the lower Nyquist frequency and 130 dB down from
/// Nyquist on, applied as an exact polyphase bank (or, for rates with no small common ratio, interpolated
/// between 2,048 phases). Each output depends only on the absolute input positions around it, so feeding the
/// input in chunks gives bit-for-bit the result of feeding it at once; `finish` flushes the filter's tail.
/// The output is aligned with the input: no delay is added.
public struct StreamingResampler: Sendable {
    /// The input rate in Hz.
    public let inputRate: Int
    /// The output rate in Hz.
    public let outputRate: Int

    private let filter: ResamplingFilter
    /// Input not yet fully used; `buffer[0]` is input position `bufferStart`.
    private var buffer: [Float]
    /// Next output's position in the input: `nextIndex + nextPhase / filter.up`, `nextIndex` relative to `buffer`.
    private var nextIndex = 0
    private var nextPhase = 0
    private var inputCount = 0
    private var outputCount = 0

    /// Creates a resampler from `inputRate` to `outputRate` Hz.
    public init(inputRate: Int, outputRate: Int) throws {
        guard inputRate > 0 else { throw AudioFileError.invalidSampleRate(inputRate) }
        guard outputRate > 0 else { throw AudioFileError.invalidSampleRate(outputRate) }
        self.inputRate = inputRate
        self.outputRate = outputRate
        filter = ResamplingFilter(inputRate: inputRate, outputRate: outputRate)
        buffer = []
        reset()
    }

    /// Input samples the output lags behind: the outputs for the last `latency` inputs wait for more input
    /// or for `finish()`.
    public var latency: Int { filter.taps / 2 }

    /// Resamples the next chunk; returns every output sample the input so far fully determines.
    public mutating func process(_ samples: [Float]) -> [Float] {
        inputCount += samples.count
        if inputRate == outputRate {
            outputCount += samples.count
            return samples
        }
        buffer += samples
        return drain()
    }

    /// Flushes the outputs still waiting for input past the end, then resets for a new stream.
    public mutating func finish() -> [Float] {
        defer { reset() }
        if inputRate == outputRate { return [] }
        let total = (inputCount * filter.up + filter.down - 1) / filter.down
        buffer += [Float](repeating: 0, count: filter.taps)
        var tail = drain()
        tail.removeLast(max(0, outputCount - total))
        return tail
    }

    /// Back to the state of a new resampler.
    public mutating func reset() {
        // Half a filter of silence before the first input lets output 0 see inputs -taps/2+1 ... taps/2.
        buffer = [Float](repeating: 0, count: filter.taps / 2 - 1)
        nextIndex = 0
        nextPhase = 0
        inputCount = 0
        outputCount = 0
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
        let output = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            var index = nextIndex
            var phase = nextPhase
            buffer.withUnsafeBufferPointer { input in
                filter.coefficients.withUnsafeBufferPointer { bank in
                    let inputBase = input.baseAddress!
                    let bankBase = bank.baseAddress!
                    for k in 0..<count {
                        let window = inputBase + index
                        if filter.exact {
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
        outputCount += count
        return output
    }

    /// Dot product in a fixed order (independent of where the window starts), so chunking never changes bits.
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
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }
}
