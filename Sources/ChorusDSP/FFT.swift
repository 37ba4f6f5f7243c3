import Foundation

/// A complex discrete Fourier transform of one fixed size, for any size.
///
/// Sizes whose prime factors are all at most 13 run as a Stockham auto-sort FFT with radix-4, 2, 3 and 5
/// kernels (and direct small-prime butterflies); any other size runs through Bluestein's chirp-z algorithm
/// on a power-of-two FFT. Data is split complex (separate real and imaginary arrays). The forward
/// transform uses `exp(-2πi nk/N)` and is unscaled; `inverse` uses `exp(+2πi nk/N)` and divides by N.
public struct FFT: Sendable {
    /// Points per transform.
    public let size: Int
    private let plan: Plan

    private enum Plan: Sendable {
        case stockham([Stage])
        indirect case bluestein(Bluestein)
    }

    /// One pass of radix `radix` over sub-transforms of length `span`; twiddles are `(radix - 1) * span`.
    private struct Stage: Sendable {
        let radix: Int
        let span: Int
        let twiddleRe: [Float]
        let twiddleIm: [Float]
        /// Roots of unity for a direct radix (primes above 5).
        let rootRe: [Float]
        let rootIm: [Float]
    }

    private struct Bluestein: Sendable {
        let inner: FFT
        let chirpRe: [Float]
        let chirpIm: [Float]
        /// The transform of the conjugate chirp, zero-extended to `inner.size`.
        let kernelRe: [Float]
        let kernelIm: [Float]
    }

    /// Largest prime handled by a direct butterfly before switching to Bluestein.
    static let largestDirectPrime = 13

    /// A plan for `size`-point transforms.
    public init(size: Int) {
        precondition(size >= 1, "FFT size must be positive")
        self.size = size
        var factors: [Int] = []
        var rest = size
        while rest % 4 == 0 { factors.append(4); rest /= 4 }
        for prime in [2, 3, 5, 7, 11, 13] {
            while rest % prime == 0 { factors.append(prime); rest /= prime }
        }
        if rest == 1 {
            plan = .stockham(Self.stages(for: factors, size: size))
        } else {
            plan = .bluestein(Self.bluestein(size: size))
        }
    }

    private static func stages(for factors: [Int], size: Int) -> [Stage] {
        var span = 1
        var stages: [Stage] = []
        for radix in factors {
            var twiddleRe: [Float] = []
            var twiddleIm: [Float] = []
            for r in 1..<radix {
                for j in 0..<span {
                    let angle = -2 * Double.pi * Double(r * j) / Double(span * radix)
                    twiddleRe.append(Float(cos(angle)))
                    twiddleIm.append(Float(sin(angle)))
                }
            }
            var rootRe: [Float] = []
            var rootIm: [Float] = []
            if radix > 5 {
                for k in 0..<radix {
                    let angle = -2 * Double.pi * Double(k) / Double(radix)
                    rootRe.append(Float(cos(angle)))
                    rootIm.append(Float(sin(angle)))
                }
            }
            stages.append(Stage(radix: radix, span: span, twiddleRe: twiddleRe, twiddleIm: twiddleIm,
                                rootRe: rootRe, rootIm: rootIm))
            span *= radix
        }
        return stages
    }

    private static func bluestein(size: Int) -> Bluestein {
        var padded = 1
        while padded < 2 * size - 1 { padded *= 2 }
        var chirpRe = [Float](repeating: 0, count: size)
        var chirpIm = [Float](repeating: 0, count: size)
        for k in 0..<size {
            // k^2 mod 2N keeps the angle exact for large k.
            let square = (k * k) % (2 * size)
            let angle = -Double.pi * Double(square) / Double(size)
            chirpRe[k] = Float(cos(angle))
            chirpIm[k] = Float(sin(angle))
        }
        var kernelRe = [Float](repeating: 0, count: padded)
        var kernelIm = [Float](repeating: 0, count: padded)
        for k in 0..<size {
            kernelRe[k] = chirpRe[k]
            kernelIm[k] = -chirpIm[k]
            if k > 0 {
                kernelRe[padded - k] = chirpRe[k]
                kernelIm[padded - k] = -chirpIm[k]
            }
        }
        let inner = FFT(size: padded)
        inner.forward(real: &kernelRe, imag: &kernelIm)
        return Bluestein(inner: inner, chirpRe: chirpRe, chirpIm: chirpIm, kernelRe: kernelRe, kernelIm: kernelIm)
    }

    /// Forward transform in place.
    public func forward(real: inout [Float], imag: inout [Float]) {
        precondition(real.count == size && imag.count == size, "FFT of size \(size) given \(real.count) values")
        var scratchRe = [Float](repeating: 0, count: scratchCount)
        var scratchIm = [Float](repeating: 0, count: scratchCount)
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                scratchRe.withUnsafeMutableBufferPointer { sre in
                    scratchIm.withUnsafeMutableBufferPointer { sim in
                        forward(re.baseAddress!, im.baseAddress!, scratchRe: sre.baseAddress!, scratchIm: sim.baseAddress!)
                    }
                }
            }
        }
    }

    /// Inverse transform in place, scaled by 1/N so that `inverse(forward(x)) == x`.
    public func inverse(real: inout [Float], imag: inout [Float]) {
        for index in imag.indices { imag[index] = -imag[index] }
        forward(real: &real, imag: &imag)
        let scale = 1 / Float(size)
        for index in real.indices {
            real[index] *= scale
            imag[index] *= -scale
        }
    }

    /// Forward transform of `size` values in place; the scratch buffers hold at least `scratchCount` values.
    public func forward(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>,
        scratchRe: UnsafeMutablePointer<Float>, scratchIm: UnsafeMutablePointer<Float>
    ) {
        switch plan {
        case .stockham(let stages):
            Self.run(stages, size: size, re, im, scratchRe: scratchRe, scratchIm: scratchIm)
        case .bluestein(let plan):
            bluesteinForward(plan, re, im, scratchRe: scratchRe, scratchIm: scratchIm)
        }
    }

    /// Eight transforms at once, one per lane: `size` values in place, scratch of `scratchCount` values.
    /// Sizes that need Bluestein's algorithm run lane by lane.
    public func forward(
        lanes re: UnsafeMutablePointer<SIMD8<Float>>, _ im: UnsafeMutablePointer<SIMD8<Float>>,
        scratchRe: UnsafeMutablePointer<SIMD8<Float>>, scratchIm: UnsafeMutablePointer<SIMD8<Float>>
    ) {
        switch plan {
        case .stockham(let stages):
            Self.run(stages, size: size, re, im, scratchRe: scratchRe, scratchIm: scratchIm)
        case .bluestein:
            var laneRe = [Float](repeating: 0, count: size), laneIm = laneRe
            for lane in 0..<8 {
                for index in 0..<size { (laneRe[index], laneIm[index]) = (re[index][lane], im[index][lane]) }
                forward(real: &laneRe, imag: &laneIm)
                for index in 0..<size { (re[index][lane], im[index][lane]) = (laneRe[index], laneIm[index]) }
            }
        }
    }

    /// Values each scratch buffer of `forward(_:_:scratchRe:scratchIm:)` must hold.
    public var scratchCount: Int {
        switch plan {
        case .stockham: size
        case .bluestein(let plan): 2 * plan.inner.size
        }
    }

    private func bluesteinForward(
        _ plan: Bluestein, _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>,
        scratchRe: UnsafeMutablePointer<Float>, scratchIm: UnsafeMutablePointer<Float>
    ) {
        let padded = plan.inner.size
        let workRe = scratchRe
        let workIm = scratchIm
        let innerScratchRe = scratchRe + padded
        let innerScratchIm = scratchIm + padded
        workRe.update(repeating: 0, count: padded)
        workIm.update(repeating: 0, count: padded)
        for k in 0..<size {
            workRe[k] = re[k] * plan.chirpRe[k] - im[k] * plan.chirpIm[k]
            workIm[k] = re[k] * plan.chirpIm[k] + im[k] * plan.chirpRe[k]
        }
        plan.inner.forward(workRe, workIm, scratchRe: innerScratchRe, scratchIm: innerScratchIm)
        // Multiply by the kernel and conjugate, so a forward transform computes the inverse.
        for k in 0..<padded {
            let productRe = workRe[k] * plan.kernelRe[k] - workIm[k] * plan.kernelIm[k]
            let productIm = workRe[k] * plan.kernelIm[k] + workIm[k] * plan.kernelRe[k]
            workRe[k] = productRe
            workIm[k] = -productIm
        }
        plan.inner.forward(workRe, workIm, scratchRe: innerScratchRe, scratchIm: innerScratchIm)
        let scale = 1 / Float(padded)
        for k in 0..<size {
            let convolvedRe = workRe[k] * scale
            let convolvedIm = -workIm[k] * scale
            re[k] = convolvedRe * plan.chirpRe[k] - convolvedIm * plan.chirpIm[k]
            im[k] = convolvedRe * plan.chirpIm[k] + convolvedIm * plan.chirpRe[k]
        }
    }

    /// Every Stockham pass in turn, each reading what the last wrote (the data, then the scratch,
    /// and back), leaving the transform in `re`/`im`.
    private static func run<V: FFTLanes>(
        _ stages: [Stage], size: Int, _ re: UnsafeMutablePointer<V>, _ im: UnsafeMutablePointer<V>,
        scratchRe: UnsafeMutablePointer<V>, scratchIm: UnsafeMutablePointer<V>
    ) {
        var source = (re, im)
        var target = (scratchRe, scratchIm)
        for stage in stages {
            run(stage, size: size, from: source, to: target)
            swap(&source, &target)
        }
        if source.0 != re {
            re.update(from: source.0, count: size)
            im.update(from: source.1, count: size)
        }
    }

    /// One Stockham pass: butterfly `j` reads `x[j + r * N/R]`, twiddles by `w^(r * (j mod span))` and writes
    /// `y[(j / span) * span * R + j mod span + r * span]`.
    private static func run<V: FFTLanes>(
        _ stage: Stage, size: Int,
        from source: (UnsafeMutablePointer<V>, UnsafeMutablePointer<V>),
        to target: (UnsafeMutablePointer<V>, UnsafeMutablePointer<V>)
    ) {
        let radix = stage.radix
        let span = stage.span
        let quarter = size / radix
        let (xr, xi) = source
        let (yr, yi) = target
        stage.twiddleRe.withUnsafeBufferPointer { twr in
            stage.twiddleIm.withUnsafeBufferPointer { twi in
                var j = 0
                while j < quarter {
                    let group = j / span
                    // Within one group the twiddle index runs 0..<span alongside j.
                    let groupEnd = min(quarter, (group + 1) * span)
                    let outBase = group * span * radix - group * span
                    switch radix {
                    case 2:
                        for jj in j..<groupEnd {
                            let t = jj - group * span
                            let ar = xr[jj], ai = xi[jj]
                            let br0 = xr[jj + quarter], bi0 = xi[jj + quarter]
                            let wr = twr[t], wi = twi[t]
                            let br = br0 * wr - bi0 * wi, bi = br0 * wi + bi0 * wr
                            let o = outBase + jj
                            yr[o] = ar + br; yi[o] = ai + bi
                            yr[o + span] = ar - br; yi[o + span] = ai - bi
                        }
                    case 4:
                        for jj in j..<groupEnd {
                            let t = jj - group * span
                            let a0r = xr[jj], a0i = xi[jj]
                            var a1r = xr[jj + quarter], a1i = xi[jj + quarter]
                            var a2r = xr[jj + 2 * quarter], a2i = xi[jj + 2 * quarter]
                            var a3r = xr[jj + 3 * quarter], a3i = xi[jj + 3 * quarter]
                            if span > 1 {
                                (a1r, a1i) = (a1r * twr[t] - a1i * twi[t], a1r * twi[t] + a1i * twr[t])
                                (a2r, a2i) = (a2r * twr[span + t] - a2i * twi[span + t],
                                              a2r * twi[span + t] + a2i * twr[span + t])
                                (a3r, a3i) = (a3r * twr[2 * span + t] - a3i * twi[2 * span + t],
                                              a3r * twi[2 * span + t] + a3i * twr[2 * span + t])
                            }
                            let t0r = a0r + a2r, t0i = a0i + a2i
                            let t1r = a0r - a2r, t1i = a0i - a2i
                            let t2r = a1r + a3r, t2i = a1i + a3i
                            let t3r = a1r - a3r, t3i = a1i - a3i
                            let o = outBase + jj
                            yr[o] = t0r + t2r; yi[o] = t0i + t2i
                            yr[o + span] = t1r + t3i; yi[o + span] = t1i - t3r
                            yr[o + 2 * span] = t0r - t2r; yi[o + 2 * span] = t0i - t2i
                            yr[o + 3 * span] = t1r - t3i; yi[o + 3 * span] = t1i + t3r
                        }
                    case 3:
                        let s: Float = 0.866_025_403_784_438_6
                        for jj in j..<groupEnd {
                            let t = jj - group * span
                            let a0r = xr[jj], a0i = xi[jj]
                            let b1r = xr[jj + quarter], b1i = xi[jj + quarter]
                            let b2r = xr[jj + 2 * quarter], b2i = xi[jj + 2 * quarter]
                            let a1r = b1r * twr[t] - b1i * twi[t], a1i = b1r * twi[t] + b1i * twr[t]
                            let a2r = b2r * twr[span + t] - b2i * twi[span + t]
                            let a2i = b2r * twi[span + t] + b2i * twr[span + t]
                            let sumR = a1r + a2r, sumI = a1i + a2i
                            let midR = a0r - 0.5 * sumR, midI = a0i - 0.5 * sumI
                            let dR = s * (a1r - a2r), dI = s * (a1i - a2i)
                            let o = outBase + jj
                            yr[o] = a0r + sumR; yi[o] = a0i + sumI
                            yr[o + span] = midR + dI; yi[o + span] = midI - dR
                            yr[o + 2 * span] = midR - dI; yi[o + 2 * span] = midI + dR
                        }
                    case 5:
                        let c1: Float = 0.309_016_994_374_947_45, c2: Float = -0.809_016_994_374_947_5
                        let s1: Float = 0.951_056_516_295_153_5, s2: Float = 0.587_785_252_292_473_1
                        for jj in j..<groupEnd {
                            let t = jj - group * span
                            var ar = (V.zero, V.zero, V.zero, V.zero, V.zero)
                            var ai = ar
                            ar.0 = xr[jj]; ai.0 = xi[jj]
                            func load(_ r: Int) -> (V, V) {
                                let vr = xr[jj + r * quarter], vi = xi[jj + r * quarter]
                                let wr = twr[(r - 1) * span + t], wi = twi[(r - 1) * span + t]
                                return (vr * wr - vi * wi, vr * wi + vi * wr)
                            }
                            (ar.1, ai.1) = load(1)
                            (ar.2, ai.2) = load(2)
                            (ar.3, ai.3) = load(3)
                            (ar.4, ai.4) = load(4)
                            let b1r = ar.1 + ar.4, b1i = ai.1 + ai.4
                            let b2r = ar.2 + ar.3, b2i = ai.2 + ai.3
                            let d1r = ar.1 - ar.4, d1i = ai.1 - ai.4
                            let d2r = ar.2 - ar.3, d2i = ai.2 - ai.3
                            let m1r = ar.0 + c1 * b1r + c2 * b2r, m1i = ai.0 + c1 * b1i + c2 * b2i
                            let m2r = ar.0 + c2 * b1r + c1 * b2r, m2i = ai.0 + c2 * b1i + c1 * b2i
                            // -i * (s1 d1 + s2 d2) and -i * (s2 d1 - s1 d2)
                            let e1r = s1 * d1i + s2 * d2i, e1i = -(s1 * d1r + s2 * d2r)
                            let e2r = s2 * d1i - s1 * d2i, e2i = -(s2 * d1r - s1 * d2r)
                            let o = outBase + jj
                            yr[o] = ar.0 + b1r + b2r; yi[o] = ai.0 + b1i + b2i
                            yr[o + span] = m1r + e1r; yi[o + span] = m1i + e1i
                            yr[o + 4 * span] = m1r - e1r; yi[o + 4 * span] = m1i - e1i
                            yr[o + 2 * span] = m2r + e2r; yi[o + 2 * span] = m2i + e2i
                            yr[o + 3 * span] = m2r - e2r; yi[o + 3 * span] = m2i - e2i
                        }
                    default:
                        for jj in j..<groupEnd {
                            let t = jj - group * span
                            var valuesR = [V](repeating: .zero, count: radix)
                            var valuesI = [V](repeating: .zero, count: radix)
                            valuesR[0] = xr[jj]; valuesI[0] = xi[jj]
                            for r in 1..<radix {
                                let vr = xr[jj + r * quarter], vi = xi[jj + r * quarter]
                                let wr = twr[(r - 1) * span + t], wi = twi[(r - 1) * span + t]
                                valuesR[r] = vr * wr - vi * wi
                                valuesI[r] = vr * wi + vi * wr
                            }
                            let o = outBase + jj
                            for k in 0..<radix {
                                var sumR = V.zero, sumI = V.zero
                                for r in 0..<radix {
                                    let root = (r * k) % radix
                                    sumR = sumR + (valuesR[r] * stage.rootRe[root] - valuesI[r] * stage.rootIm[root])
                                    sumI = sumI + (valuesR[r] * stage.rootIm[root] + valuesI[r] * stage.rootRe[root])
                                }
                                yr[o + k * span] = sumR; yi[o + k * span] = sumI
                            }
                        }
                    }
                    j = groupEnd
                }
            }
        }
    }
}

/// The values an FFT pass computes with: one `Float`, or eight in the lanes of a `SIMD8<Float>` (eight
/// transforms at once, every lane doing exactly the arithmetic of the scalar transform).
protocol FFTLanes {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Float, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Float) -> Self
    static prefix func - (operand: Self) -> Self
    /// `fft`'s forward transform of these values, in place.
    static func forward(
        _ fft: FFT, _ re: UnsafeMutablePointer<Self>, _ im: UnsafeMutablePointer<Self>,
        scratchRe: UnsafeMutablePointer<Self>, scratchIm: UnsafeMutablePointer<Self>)
}

extension Float: FFTLanes {
    static func forward(
        _ fft: FFT, _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>,
        scratchRe: UnsafeMutablePointer<Float>, scratchIm: UnsafeMutablePointer<Float>
    ) {
        fft.forward(re, im, scratchRe: scratchRe, scratchIm: scratchIm)
    }
}

extension SIMD8: FFTLanes where Scalar == Float {
    static func forward(
        _ fft: FFT, _ re: UnsafeMutablePointer<Self>, _ im: UnsafeMutablePointer<Self>,
        scratchRe: UnsafeMutablePointer<Self>, scratchIm: UnsafeMutablePointer<Self>
    ) {
        fft.forward(lanes: re, im, scratchRe: scratchRe, scratchIm: scratchIm)
    }
}
