import Foundation

/// The sharp stage of `StreamingResampler`: a long linear-phase low-pass at rate `F` with its stopband from
/// `F / 4` on, which either halves the rate or doubles it. It runs as FFT overlap-save, two blocks per complex
/// transform (one in the real part, one in the imaginary part: the filter is real, so they come back the same
/// way), so its cost per sample grows with the log of its length, not with the length. The rate changes
/// happen in the spectrum: halving folds bins `k` and `k + N/2` together before an inverse of half the size;
/// doubling repeats a half-size spectrum (the spectrum of the input with zeros between its samples).
///
/// It also divides the rate by three (stopband from `F / 6`), for rate pairs such as 48 kHz to 16 kHz: the
/// block splits into its three phases `x[3n + r]`, each is transformed at a third of the size and multiplied by
/// the spectrum of the matching phase of the filter, `h[3j - r]`, and one inverse of the sum gives the outputs
/// at `F / 3` (a polyphase decimator whose branches are convolved in the spectrum). Blocks sit at fixed
/// positions in the stream, so chunking never changes bits.
struct SharpFilterStage: Sendable {
    enum Mode: Sendable {
        /// In at rate F, out at F / 2.
        case decimate
        /// In at rate F / 2, out at F.
        case interpolate
        /// In at rate F, out at F / 3.
        case decimateByThree
    }

    let mode: Mode
    /// Points per block of the filter's transform at the higher rate F.
    private let size: Int
    /// The forward transform of the input side and the inverse of the output side: `size` and `size / 2` for
    /// decimation, `size / 2` and `size` for interpolation, `size / 3` for both when dividing by three.
    private let inputFFT: ConvolutionFFT
    private let outputFFT: ConvolutionFFT
    /// The filter reaches `reach` samples at F each side (even when interpolating, a multiple of 3 when
    /// dividing by three).
    private let reach: Int
    /// Samples at F per block: `size - 2 * reach` (even, or a multiple of 3 when dividing by three).
    private let block: Int
    /// The filter's spectrum in the order of `ConvolutionFFT.forward`, with the scale of the inverse folded in.
    /// Halving and doubling: four runs of `size / 2`, the even slots' real and imaginary parts, then the odd
    /// slots'; slots `2q` and `2q + 1` hold bins `k` and `k + size/2`, which decimation sums and interpolation
    /// fills from one bin. Dividing by three: the real and imaginary parts of the spectrum of each phase of the
    /// filter, six runs of `size / 3`.
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
        let factor = mode == .decimateByThree ? 3 : 2
        // In cycles per sample at F: pass to 0.915 of the lower Nyquist frequency, stop from it.
        let edge = 0.5 / Double(factor)
        let transition = edge * (1 - Self.passbandEnd)
        let cutoff = edge - transition / 2
        let length = (Self.attenuation - 7.95) / (14.36 * transition)
        let reach = factor == 3 ? 3 * Int((length / 6).rounded(.up)) : 2 * Int((length / 4).rounded(.up))
        self.reach = reach
        // Each block wastes 2 reach of its transform. Measured on x86-64: 2048 points (6 reach) cost 30% less
        // per output than 1024 and about as little as 4096 or 8192. Decimation takes 4096 (3596 outputs per
        // block) at twice the latency: on a pure tone the float rounding repeats once per block pair and
        // gathers on lines of the spectrum, and decimation folds the stopband, where such lines count as
        // aliasing; longer pairs spread them over more lines (16 kHz at 48 kHz to 24 kHz: a line at -147 dB
        // with 2048 points, below -159 dB with 4096). Interpolation folds nothing and keeps the latency low.
        var size = factor == 3 ? 3 * 512 : 1024
        while size < (mode == .interpolate ? 6 : 12) * reach { size *= 2 }
        self.size = size
        switch mode {
        case .decimate: (inputFFT, outputFFT) = (ConvolutionFFT(size: size), ConvolutionFFT(size: size / 2))
        case .interpolate: (inputFFT, outputFFT) = (ConvolutionFFT(size: size / 2), ConvolutionFFT(size: size))
        case .decimateByThree: (inputFFT, outputFFT) = (ConvolutionFFT(size: size / 3), ConvolutionFFT(size: size / 3))
        }
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
        if mode == .decimateByThree {
            // Output m is sum over r of (h[3j - r] * x[3n + r]) at j + n = m: phase r of the filter meets phase r
            // of the block, circularly at size / 3.
            let third = size / 3
            let fft = inputFFT
            response = (0..<3).flatMap { r -> [Float] in
                let phase = (0..<third).map { j in 3 * j - r >= 0 ? impulse[3 * j - r] : 0 }
                let (re, im) = fft.spectrum(of: phase, scale: 1 / Double(third))
                return re.map { Float($0) } + im.map { Float($0) }
            }
        } else {
            // Decimation folds two bins into one (a sum, halved) before an inverse of size / 2.
            let (re, im) = ConvolutionFFT(size: size).spectrum(of: impulse, scale: 1 / Double(size))
            let even = Swift.stride(from: 0, to: size, by: 2), odd = Swift.stride(from: 1, to: size, by: 2)
            response = even.map { re[$0] } + even.map { im[$0] } + odd.map { re[$0] } + odd.map { im[$0] }
        }
        reset()
    }

    /// Input samples (at the input rate) the outputs lag behind at most.
    var latency: Int { mode == .interpolate ? block + reach / 2 : 2 * block + reach }

    mutating func reset() {
        // Silence before the first input: `reach` samples at F, `reach / 2` at F / 2.
        buffer = [Float](repeating: 0, count: mode == .interpolate ? reach / 2 : reach)
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
            var work = [Float](repeating: 0, count: 2 * size)
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
    private var span: Int { mode == .interpolate ? (size + block) / 2 : size + block }
    private var stride: Int { mode == .interpolate ? block : 2 * block }
    /// Decimation keeps block / 2 (or block / 3) outputs per block; interpolation makes `block` per block.
    private var outputsPerPair: Int {
        switch mode {
        case .decimate: block
        case .interpolate: 2 * block
        case .decimateByThree: 2 * block / 3
        }
    }

    /// Filters `count` pairs of blocks, the first starting at `input`, pairs `stride` apart; `work` holds
    /// `2 * size` values.
    private func filterPairs(
        _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>,
        work: UnsafeMutablePointer<Float>
    ) {
        let (inputFFT, outputFFT, block, reach, stride, perPair) = (inputFFT, outputFFT, block, reach, stride, outputsPerPair)
        let size = size
        let zr = work, zi = work + size
        response.withUnsafeBufferPointer { response in
            let h = response.baseAddress!
            for pair in 0..<count {
                // Two blocks in one transform: the first in the real part, the second in the imaginary
                // part; the filter is real, so they come back the same way.
                let first = input + pair * stride
                let target = output + pair * perPair
                switch mode {
                case .decimate:
                    zr.update(from: first, count: size)
                    zi.update(from: first + block, count: size)
                    inputFFT.forward(zr, zi)
                    Self.multiplyAndFold(zr, zi, h, count: size)
                    outputFFT.inverse(zr, zi)
                    // The valid part [2 reach, size) at F is [reach, size / 2) at F / 2.
                    target.update(from: zr + reach, count: block / 2)
                    (target + block / 2).update(from: zi + reach, count: block / 2)
                case .interpolate:
                    zr.update(from: first, count: size / 2)
                    zi.update(from: first + block / 2, count: size / 2)
                    inputFFT.forward(zr, zi)
                    Self.repeatAndMultiply(zr, zi, h, count: size)
                    outputFFT.inverse(zr, zi)
                    target.update(from: zr + 2 * reach, count: block)
                    (target + block).update(from: zi + 2 * reach, count: block)
                case .decimateByThree:
                    // Phase r of each block in its own third of `work`: real part from the first block,
                    // imaginary part from the second.
                    let third = size / 3
                    for r in 0..<3 {
                        let (pr, pi) = (work + 2 * r * third, work + (2 * r + 1) * third)
                        for n in 0..<third {
                            pr[n] = first[3 * n + r]
                            pi[n] = first[block + 3 * n + r]
                        }
                        inputFFT.forward(pr, pi)
                    }
                    Self.multiplyPhases(work, h, count: third)
                    outputFFT.inverse(work, work + third)
                    // The valid part [2 reach, size) at F is [2 reach / 3, size / 3) at F / 3.
                    target.update(from: work + 2 * reach / 3, count: block / 3)
                    (target + block / 3).update(from: work + third + 2 * reach / 3, count: block / 3)
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

    /// The sum over the three phases of `x_r h_r`, each of `count` slots (phase r's real part at `2r count`, its
    /// imaginary part at `(2r + 1) count`, in `z` and in `h`), written over phase 0.
    private static func multiplyPhases(_ z: UnsafeMutablePointer<Float>, _ h: UnsafePointer<Float>, count: Int) {
        var q = 0
        while q < count {
            var re = SIMD4<Float>(), im = SIMD4<Float>()
            for r in 0..<3 {
                let (xr, xi) = (load4(z + 2 * r * count + q), load4(z + (2 * r + 1) * count + q))
                let (hr, hi) = (load4(h + 2 * r * count + q), load4(h + (2 * r + 1) * count + q))
                re += xr * hr - xi * hi
                im += xr * hi + xi * hr
            }
            UnsafeMutableRawPointer(z + q).storeBytes(of: re, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(z + count + q).storeBytes(of: im, as: SIMD4<Float>.self)
            q += 4
        }
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
