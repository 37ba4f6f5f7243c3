/// Sample-rate conversion of whole buffers; see `StreamingResampler` for the filter and for chunked input.
public enum Resampler {
    /// `samples` at `from` Hz converted to `to` Hz; the result has `ceil(count * to / from)` samples.
    public static func resample(_ samples: [Float], from: Int, to: Int) throws -> [Float] {
        var resampler = try StreamingResampler(inputRate: from, outputRate: to)
        // Room for the tail from the start, so appending it copies nothing.
        var output = resampler.process(samples, minimumCapacity: (samples.count * to + from - 1) / from)
        output += resampler.finish()
        return output
    }
}

/// A high-quality resampler for any pair of rates that takes its input in chunks of any size.
///
/// The response is flat to 91.5% of the lower Nyquist frequency and at least 150 dB down from that Nyquist
/// frequency on, with linear phase. It runs in two stages around the rate `F`, twice the lower of the two
/// rates: the sharp low-pass runs at `F` by FFT overlap-save (`SharpFilterStage`, halving or doubling the
/// rate), and a short polyphase filter (`PolyphaseStage`) converts between `F` and the other rate; its
/// transition band is wide because whatever it lets fold back lands where the sharp stage removes it.
/// When the input rate is exactly three times the output rate (48 kHz to 16 kHz) the sharp stage divides by
/// three on its own and there is no polyphase stage. Each output depends only on absolute input positions, so feeding the input in chunks gives bit-for-bit the
/// result of feeding it at once; `finish` flushes the filters' tails. The output is aligned with the input:
/// no delay is added.
public struct StreamingResampler: Sendable {
    /// The input rate in Hz.
    public let inputRate: Int
    /// The output rate in Hz.
    public let outputRate: Int

    /// Downsampling: polyphase (if the input rate is not F) then sharp decimation.
    /// Upsampling: sharp interpolation then polyphase (if the output rate is not F).
    private var polyphase: PolyphaseStage?
    private var sharp: SharpFilterStage?
    private let downsampling: Bool
    /// The rate between the stages: the sharp stage's higher rate F.
    private let rateF: Int
    private var inputCount = 0
    private var outputCount = 0

    /// Stopband attenuation of the polyphase stage in dB.
    static let polyphaseAttenuation = 160.0

    /// Creates a resampler from `inputRate` to `outputRate` Hz.
    public init(inputRate: Int, outputRate: Int) throws {
        // The filter's length grows with the ratio of the rates, so absurd rates are refused before it is designed.
        guard WAVFile.sampleRates.contains(inputRate) else { throw AudioFileError.invalidSampleRate(inputRate) }
        guard WAVFile.sampleRates.contains(outputRate) else { throw AudioFileError.invalidSampleRate(outputRate) }
        self.inputRate = inputRate
        self.outputRate = outputRate
        downsampling = outputRate < inputRate
        let lower = min(inputRate, outputRate)
        let byThree = inputRate == 3 * outputRate
        rateF = byThree ? inputRate : 2 * lower
        guard inputRate != outputRate else { return }
        sharp = SharpFilterStage(mode: byThree ? .decimateByThree : downsampling ? .decimate : .interpolate)
        let other = downsampling ? inputRate : outputRate
        if other != rateF {
            // Passes the lower band; stops from F - lower / 2, whose folds land above lower / 2.
            let filter = ResamplingFilter(
                inputRate: downsampling ? inputRate : rateF, outputRate: downsampling ? rateF : outputRate,
                passband: Double(lower) / 2, stopband: 1.5 * Double(lower), attenuation: Self.polyphaseAttenuation)
            polyphase = PolyphaseStage(filter: filter)
        }
    }

    /// Input samples the output lags behind at most: the outputs for the last `latency` inputs wait for more
    /// input or for `finish()`.
    public var latency: Int {
        guard let sharp else { return 0 }
        let polyphaseLatency = polyphase?.latency ?? 0
        if downsampling {
            return polyphaseLatency + (sharp.latency * inputRate + rateF - 1) / rateF
        }
        return sharp.latency + (polyphaseLatency * inputRate + rateF - 1) / rateF
    }

    /// Resamples the next chunk; returns every output sample the input so far fully determines.
    public mutating func process(_ samples: [Float]) -> [Float] {
        process(samples, minimumCapacity: 0)
    }

    /// `process(_:)` with an output array that has room for at least `minimumCapacity` samples.
    mutating func process(_ samples: [Float], minimumCapacity: Int) -> [Float] {
        inputCount += samples.count
        let output: [Float]
        if sharp == nil {
            output = samples
        } else if downsampling {
            output = sharp!.process(polyphase?.process(samples) ?? samples, minimumCapacity: minimumCapacity)
        } else if polyphase == nil {
            output = sharp!.process(samples, minimumCapacity: minimumCapacity)
        } else {
            output = polyphase!.process(sharp!.process(samples), minimumCapacity: minimumCapacity)
        }
        outputCount += output.count
        return output
    }

    /// Flushes the outputs still waiting for input past the end, then resets for a new stream.
    public mutating func finish() -> [Float] {
        defer { reset() }
        guard sharp != nil else { return [] }
        let total = (inputCount * outputRate + inputRate - 1) / inputRate
        // The middle signal runs on past the last output so that the second stage sees its true tail.
        let middleTotal = (inputCount * rateF + inputRate - 1) / inputRate + 64
        var tail: [Float]
        if downsampling {
            tail = []
            if polyphase != nil { tail = sharp!.process(polyphase!.finish(total: middleTotal)) }
            tail += sharp!.finish(total: total)
        } else if polyphase == nil {
            tail = sharp!.finish(total: total)
        } else {
            tail = polyphase!.process(sharp!.finish(total: middleTotal))
            tail += polyphase!.finish(total: total)
        }
        // The middle signal's extra samples may have produced outputs past the end.
        tail.removeLast(max(0, outputCount + tail.count - total))
        return tail
    }

    /// Back to the state of a new resampler.
    public mutating func reset() {
        inputCount = 0
        outputCount = 0
        sharp?.reset()
        polyphase?.reset()
    }
}
