import Foundation

/// The sharp stage of `StreamingResampler`: a long linear-phase low-pass at rate `F` with its stopband from
/// `F / 4` on, which either halves the rate or doubles it. It runs as FFT overlap-save, two blocks per complex
/// transform (one in the real part, one in the imaginary part: the filter is real, so they come back the same
/// way), so its cost per sample grows with the log of its length, not with the length. The rate changes
/// happen in the spectrum: halving folds bins `k` and `k + N/2` together before an inverse of half the size;
/// doubling repeats a half-size spectrum (the spectrum of the input with zeros between its samples). Blocks sit
/// at fixed positions in the stream, so chunking never changes bits.
struct SharpFilterStage: Sendable {
    enum Mode: Sendable {
        /// In at rate F, out at F / 2.
        case decimate
        /// In at rate F / 2, out at F.
        case interpolate
    }

    let mode: Mode
    /// Transforms at F (`full`) and at F / 2 (`half`).
    private let full: ConvolutionFFT
    private let half: ConvolutionFFT
    /// The filter reaches `reach` samples at F each side (even).
    private let reach: Int
    /// Samples at F per block: `full.size - 2 * reach` (even).
    private let block: Int
    /// The filter's spectrum in the order of `ConvolutionFFT.forward`, with the scale of the inverse folded in,
    /// as four runs of `size / 2`: the even slots' real and imaginary parts, then the odd slots'. Slots `2q` and
    /// `2q + 1` hold bins `k` and `k + size/2`, which decimation sums and interpolation fills from one bin.
    private let response: [Float]

    /// The signal not yet used (for decimation at F, for interpolation at F / 2).
    private var buffer: [Float] = []
    /// Outputs returned so far.
    private(set) var emitted = 0

    /// Passband edge and stopband start as fractions of F / 4, and stopband attenuation in dB.
    static let passbandEnd = 0.915
    static let attenuation = 160.0
    init(mode: Mode) {
        self.mode = mode
        // In cycles per sample at F: pass to 0.915 / 4, stop from 1 / 4.
        let transition = 0.25 * (1 - Self.passbandEnd)
        let cutoff = 0.25 - transition / 2
        let length = (Self.attenuation - 7.95) / (14.36 * transition)
        let reach = 2 * Int((length / 4).rounded(.up))
        self.reach = reach
        // Each block wastes 2 reach of its transform. Measured on x86-64: 2048 points (6 reach) cost 30% less
        // per output than 1024 and about as little as 4096 or 8192. Decimation takes 4096 (3596 outputs per
        // block) at twice the latency: on a pure tone the float rounding repeats once per block pair and
        // gathers on lines of the spectrum, and decimation folds the stopband, where such lines count as
        // aliasing; longer pairs spread them over more lines (16 kHz at 48 kHz to 24 kHz: a line at -147 dB
        // with 2048 points, below -159 dB with 4096). Interpolation folds nothing and keeps the latency low.
        var size = 1024
        while size < (mode == .decimate ? 12 : 6) * reach { size *= 2 }
        full = ConvolutionFFT(size: size)
        half = ConvolutionFFT(size: size / 2)
        block = size - 2 * reach
        let gain = mode == .interpolate ? 2.0 : 1.0
        let beta = 0.1102 * (Self.attenuation - 8.7)
        let norm = ResamplingFilter.besselI0(beta)
        var impulse = [Double](repeating: 0, count: size)
        for tap in 0...(2 * reach) {
            let distance = Double(tap - reach)
            let ratio = distance / Double(reach + 1)
            let window = ResamplingFilter.besselI0(beta * (1 - ratio * ratio).squareRoot()) / norm
            let x = 2 * cutoff * distance
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            impulse[tap] = gain * 2 * cutoff * sinc * window
        }
        // Decimation folds two bins into one (a sum, halved) before an inverse of size / 2.
        let (re, im) = full.spectrum(of: impulse, scale: 1 / Double(size))
        let even = Swift.stride(from: 0, to: size, by: 2), odd = Swift.stride(from: 1, to: size, by: 2)
        response = even.map { re[$0] } + even.map { im[$0] } + odd.map { re[$0] } + odd.map { im[$0] }
        reset()
    }

    /// Input samples (at the input rate) the outputs lag behind at most.
    var latency: Int { mode == .decimate ? 2 * block + reach : block + reach / 2 }

    mutating func reset() {
        // Silence before the first input: `reach` samples at F, `reach / 2` at F / 2.
        buffer = [Float](repeating: 0, count: mode == .decimate ? reach : reach / 2)
        emitted = 0
    }

    /// Filters the next chunk; returns every output the input so far determines, block pair by block pair.
    /// Pairs that start in the kept input read a joined copy of it and the start of `samples`; the others
    /// read `samples` in place. The result has room for at least `minimumCapacity` values.
    mutating func process(_ samples: [Float], minimumCapacity: Int = 0) -> [Float] {
        let span = span, stride = stride
        let kept = buffer.count
        let total = kept + samples.count
        let ready = total >= span ? (total - span) / stride + 1 : 0
        guard ready > 0 else {
            buffer += samples
            return [Float](unsafeUninitializedCapacity: minimumCapacity) { _, count in count = 0 }
        }
        let perPair = outputsPerPair
        let joined = min(ready, (kept + stride - 1) / stride)
        let output = [Float](unsafeUninitializedCapacity: max(ready * perPair, minimumCapacity)) { out, initialized in
            var work = [Float](repeating: 0, count: 2 * full.size)
            work.withUnsafeMutableBufferPointer { work in
                if joined > 0 {
                    let head = buffer + samples.prefix(max(0, (joined - 1) * stride + span - kept))
                    head.withUnsafeBufferPointer { head in
                        filterPairs(head.baseAddress!, count: joined, into: out.baseAddress!, work: work.baseAddress!)
                    }
                }
                if ready > joined {
                    samples.withUnsafeBufferPointer { input in
                        filterPairs(input.baseAddress! + joined * stride - kept, count: ready - joined,
                                    into: out.baseAddress! + joined * perPair, work: work.baseAddress!)
                    }
                }
            }
            initialized = ready * perPair
        }
        let consumed = ready * stride
        buffer = consumed >= kept ? Array(samples[(consumed - kept)...]) : Array(buffer[consumed...]) + samples
        emitted += output.count
        return output
    }

    /// Flushes with zeros until at least `total` outputs have been returned in all (no more than `total`
    /// unless `process` already returned more), then resets.
    mutating func finish(total: Int) -> [Float] {
        defer { reset() }
        var tail: [Float] = []
        while emitted < total {
            tail += process([Float](repeating: 0, count: span - buffer.count))
        }
        tail.removeLast(min(tail.count, emitted - total))
        return tail
    }

    /// Inputs a pair of blocks reads, and inputs from one pair to the next.
    private var span: Int { mode == .decimate ? full.size + block : (full.size + block) / 2 }
    private var stride: Int { mode == .decimate ? 2 * block : block }
    /// Decimation keeps block / 2 outputs per block; interpolation makes `block` per block.
    private var outputsPerPair: Int { mode == .decimate ? block : 2 * block }

    /// Filters `count` pairs of blocks, the first starting at `input`, pairs `stride` apart; `work` holds
    /// `2 * full.size` values.
    private func filterPairs(
        _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>,
        work: UnsafeMutablePointer<Float>
    ) {
        let (full, half, block, reach, stride, perPair) = (full, half, block, reach, stride, outputsPerPair)
        let size = full.size
        let zr = work, zi = work + size
        response.withUnsafeBufferPointer { response in
            let h = response.baseAddress!
            for pair in 0..<count {
                // Two blocks in one transform: the first in the real part, the second in the imaginary
                // part; the filter is real, so they come back the same way.
                let first = input + pair * stride
                let target = output + pair * perPair
                if mode == .decimate {
                    zr.update(from: first, count: size)
                    zi.update(from: first + block, count: size)
                    full.forward(zr, zi)
                    Self.multiplyAndFold(zr, zi, h, count: size)
                    half.inverse(zr, zi)
                    // The valid part [2 reach, size) at F is [reach, size / 2) at F / 2.
                    target.update(from: zr + reach, count: block / 2)
                    (target + block / 2).update(from: zi + reach, count: block / 2)
                } else {
                    zr.update(from: first, count: size / 2)
                    zi.update(from: first + block / 2, count: size / 2)
                    half.forward(zr, zi)
                    Self.repeatAndMultiply(zr, zi, h, count: size)
                    full.inverse(zr, zi)
                    target.update(from: zr + 2 * reach, count: block)
                    (target + block).update(from: zi + 2 * reach, count: block)
                }
            }
        }
    }

    @inline(__always)
    private static func load4(_ pointer: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    private static func load8(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// `z = z h`, then slots `2q` and `2q + 1` (bins k and k + N/2) summed into slot `q`: the spectrum of every
    /// other sample, in the order of a transform of half the size.
    private static func multiplyAndFold(
        _ zr: UnsafeMutablePointer<Float>, _ zi: UnsafeMutablePointer<Float>, _ h: UnsafePointer<Float>, count: Int
    ) {
        let half = count / 2
        var q = 0
        while q < half {
            // Reads slots [2q, 2q + 8) before writing [q, q + 4), which no later step reads.
            let xr = load8(zr + 2 * q), xi = load8(zi + 2 * q)
            let (ar, ai, br, bi) = (xr.evenHalf, xi.evenHalf, xr.oddHalf, xi.oddHalf)
            let her = load4(h + q), hei = load4(h + half + q)
            let hor = load4(h + 2 * half + q), hoi = load4(h + 3 * half + q)
            let re = (ar * her - ai * hei) + (br * hor - bi * hoi)
            let im = (ar * hei + ai * her) + (br * hoi + bi * hor)
            UnsafeMutableRawPointer(zr + q).storeBytes(of: re, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(zi + q).storeBytes(of: im, as: SIMD4<Float>.self)
            q += 4
        }
    }

    /// The half-size spectrum in the first half of `z` repeated (the spectrum of the signal with zeros
    /// between its samples): slot `q` goes to slots `2q` and `2q + 1`, times `h`. Runs backwards so it can work
    /// in place.
    private static func repeatAndMultiply(
        _ zr: UnsafeMutablePointer<Float>, _ zi: UnsafeMutablePointer<Float>, _ h: UnsafePointer<Float>, count: Int
    ) {
        let half = count / 2
        var q = half - 4
        while q >= 0 {
            let xr = load4(zr + q), xi = load4(zi + q)
            let her = load4(h + q), hei = load4(h + half + q)
            let hor = load4(h + 2 * half + q), hoi = load4(h + 3 * half + q)
            var re = SIMD8<Float>(), im = SIMD8<Float>()
            re.evenHalf = xr * her - xi * hei
            im.evenHalf = xr * hei + xi * her
            re.oddHalf = xr * hor - xi * hoi
            im.oddHalf = xr * hoi + xi * hor
            UnsafeMutableRawPointer(zr + 2 * q).storeBytes(of: re, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(zi + 2 * q).storeBytes(of: im, as: SIMD8<Float>.self)
            q -= 4
        }
    }
}
