import Foundation

/// A power-of-two complex FFT made for fast convolution: the forward transform leaves its bins in bit-reversed
/// order and the inverse takes them in that order, so neither pass reorders anything. A spectrum from
/// `forward` may be multiplied bin by bin with another from `forward` (or `spectrum(of:)`), never read by
/// frequency. Data is split complex. `inverse(forward(x)) == size * x`.
///
/// The passes are radix 4 (one radix-2 pass first when the size is an odd power of two), four butterflies
/// per `SIMD4` operation, the width of SSE and NEON registers; the last two radix-4 passes run on each run of
/// 16 values in registers. A radix-4 butterfly writes its outputs where two radix-2 passes would, so the
/// order of the bins is the bit-reversed order of the radix-2 algorithm.
struct ConvolutionFFT: Sendable {
    /// Points per transform, a power of two of at least 16.
    let size: Int
    /// Per pass, widest first: for the radix-2 pass `exp(-2πi j / span)` (real run, imaginary run, `span / 2`
    /// each); for a radix-4 pass of span `4q`, `w^j, w^2j, w^3j` with `w = exp(-2πi / 4q)` as six runs of `q`
    /// (real, imaginary for each power).
    private let twiddles: [Float]
    /// Whether the first pass is radix 2 (the size is an odd power of two).
    private let startsWithRadix2: Bool
    /// `w^j, w^2j, w^3j` for `w = exp(-2πi / 16)`, `j = 0 ... 3` in the lanes: the first of the two passes on a
    /// run of 16.
    private let w16: [SIMD4<Float>]

    init(size: Int) {
        precondition(size >= 16 && size & (size - 1) == 0, "ConvolutionFFT needs a power of two >= 16")
        self.size = size
        startsWithRadix2 = size.trailingZeroBitCount % 2 == 1
        var table: [Float] = []
        var span = size
        func root(_ numerator: Int, _ span: Int) -> (Float, Float) {
            let angle = -2 * Double.pi * Double(numerator) / Double(span)
            return (Float(cos(angle)), Float(sin(angle)))
        }
        if startsWithRadix2 {
            table += (0..<(span / 2)).map { root($0, span).0 }
            table += (0..<(span / 2)).map { root($0, span).1 }
            span /= 2
        }
        while span > 16 {
            let quarter = span / 4
            for power in 1...3 {
                table += (0..<quarter).map { root(power * $0, span).0 }
                table += (0..<quarter).map { root(power * $0, span).1 }
            }
            span /= 4
        }
        twiddles = table
        w16 = (1...3).flatMap { power in
            let values = (0..<4).map { root(power * $0, 16) }
            return [SIMD4(values.map(\.0)), SIMD4(values.map(\.1))]
        }
    }

    /// The transform of `values` (`size` real values, zero imaginary parts) in double precision, rounded,
    /// in the bit-reversed order of `forward` and multiplied by `scale`.
    func spectrum(of values: [Double], scale: Double) -> (re: [Float], im: [Float]) {
        precondition(values.count == size)
        var re = values
        var im = [Double](repeating: 0, count: size)
        // exp(-2πi j / size); a pass of half-width h uses every (size / 2h)-th.
        let roots = (0..<(size / 2)).map { j in
            let angle = -2 * Double.pi * Double(j) / Double(size)
            return (cos(angle), sin(angle))
        }
        var half = size / 2
        while half >= 1 {
            let step = size / (2 * half)
            for base in stride(from: 0, to: size, by: 2 * half) {
                for j in 0..<half {
                    let (wr, wi) = roots[j * step]
                    let (ar, ai) = (re[base + j], im[base + j])
                    let (br, bi) = (re[base + j + half], im[base + j + half])
                    re[base + j] = ar + br
                    im[base + j] = ai + bi
                    let (dr, di) = (ar - br, ai - bi)
                    re[base + j + half] = dr * wr - di * wi
                    im[base + j + half] = dr * wi + di * wr
                }
            }
            half /= 2
        }
        return (re.map { Float($0 * scale) }, im.map { Float($0 * scale) })
    }

    /// Decimation in frequency, in place: natural order in, bit-reversed order out.
    func forward(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>) {
        twiddles.withUnsafeBufferPointer { table in
            var w = table.baseAddress!
            var span = size
            if startsWithRadix2 {
                Self.forwardRadix2(re, im, size: size, w)
                w += span
                span /= 2
            }
            while span > 16 {
                Self.forwardRadix4(re, im, size: size, span: span, w)
                w += 6 * (span / 4)
                span /= 4
            }
        }
        w16.withUnsafeBufferPointer { w16 in
            Self.forwardSixteens(re, im, size: size, w16.baseAddress!)
        }
    }

    /// Decimation in time with conjugate twiddles, in place: bit-reversed order in, natural order out; each
    /// pass undoes one of `forward` times its radix.
    func inverse(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>) {
        w16.withUnsafeBufferPointer { w16 in
            Self.inverseSixteens(re, im, size: size, w16.baseAddress!)
        }
        twiddles.withUnsafeBufferPointer { table in
            var w = table.baseAddress! + table.count
            var span = 64
            while span <= (startsWithRadix2 ? size / 2 : size) {
                w -= 6 * (span / 4)
                Self.inverseRadix4(re, im, size: size, span: span, w)
                span *= 4
            }
            if startsWithRadix2 {
                Self.inverseRadix2(re, im, size: size, table.baseAddress!)
            }
        }
    }

    @inline(__always)
    private static func load(_ pointer: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    private static func load(_ pointer: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    private static func store(_ value: SIMD4<Float>, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD4<Float>.self)
    }

    /// The radix-2 pass over the whole size: `(a, b) -> (a + b, (a - b) w^j)`.
    private static func forwardRadix2(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, _ w: UnsafePointer<Float>
    ) {
        let half = size / 2
        var j = 0
        while j < half {
            let ar = load(re + j), ai = load(im + j)
            let br = load(re + j + half), bi = load(im + j + half)
            let wr = load(w + j), wi = load(w + half + j)
            store(ar + br, re + j)
            store(ai + bi, im + j)
            let dr = ar - br, di = ai - bi
            store(dr * wr - di * wi, re + j + half)
            store(dr * wi + di * wr, im + j + half)
            j += 4
        }
    }

    /// Undoes `forwardRadix2` times 2: `(a, b) -> (a + b conj(w^j), a - b conj(w^j))`.
    private static func inverseRadix2(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, _ w: UnsafePointer<Float>
    ) {
        let half = size / 2
        var j = 0
        while j < half {
            let ar = load(re + j), ai = load(im + j)
            let cr = load(re + j + half), ci = load(im + j + half)
            let wr = load(w + j), wi = load(w + half + j)
            let br = cr * wr + ci * wi, bi = ci * wr - cr * wi
            store(ar + br, re + j)
            store(ai + bi, im + j)
            store(ar - br, re + j + half)
            store(ai - bi, im + j + half)
            j += 4
        }
    }

    /// One radix-4 DIF butterfly on `a, b, c, d` (inputs `j`, `j + q`, `j + 2q`, `j + 3q` of a span of `4q`);
    /// returns the outputs in the order they are stored: `X(4k)`, `X(4k + 2) w^2j`, `X(4k + 1) w^j`,
    /// `X(4k + 3) w^3j` (each before its twiddle).
    @inline(__always)
    private static func forwardButterfly(
        _ ar: SIMD4<Float>, _ ai: SIMD4<Float>, _ br: SIMD4<Float>, _ bi: SIMD4<Float>,
        _ cr: SIMD4<Float>, _ ci: SIMD4<Float>, _ dr: SIMD4<Float>, _ di: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let sr = ar + cr, si = ai + ci
        let pr = ar - cr, pi = ai - ci
        let tr = br + dr, ti = bi + di
        let er = br - dr, ei = bi - di
        // y1 = p - i e, y3 = p + i e
        return (sr + tr, si + ti, sr - tr, si - ti, pr + ei, pi - er, pr - ei, pi + er)
    }

    /// Undoes `forwardButterfly` times 4, from the untwiddled outputs in stored order.
    @inline(__always)
    private static func inverseButterfly(
        _ y0r: SIMD4<Float>, _ y0i: SIMD4<Float>, _ y2r: SIMD4<Float>, _ y2i: SIMD4<Float>,
        _ y1r: SIMD4<Float>, _ y1i: SIMD4<Float>, _ y3r: SIMD4<Float>, _ y3i: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let sr = y0r + y2r, si = y0i + y2i  // 2 (a + c)
        let tr = y0r - y2r, ti = y0i - y2i  // 2 (b + d)
        let pr = y1r + y3r, pi = y1i + y3i  // 2 (a - c)
        let mr = y1r - y3r, mi = y1i - y3i  // -2i (b - d)
        // a, b, c, d; 2 (b - d) = i m = (-mi, mr)
        return (sr + pr, si + pi, tr - mi, ti + mr, sr - pr, si - pi, tr + mi, ti - mr)
    }

    @inline(__always)
    private static func multiply(
        _ xr: SIMD4<Float>, _ xi: SIMD4<Float>, _ wr: SIMD4<Float>, _ wi: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>) {
        (xr * wr - xi * wi, xr * wi + xi * wr)
    }

    @inline(__always)
    private static func multiplyConjugate(
        _ xr: SIMD4<Float>, _ xi: SIMD4<Float>, _ wr: SIMD4<Float>, _ wi: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>) {
        (xr * wr + xi * wi, xi * wr - xr * wi)
    }

    /// One radix-4 pass over sub-transforms of `span` (at least 64) values.
    private static func forwardRadix4(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, span: Int,
        _ w: UnsafePointer<Float>
    ) {
        let q = span / 4
        var base = 0
        while base < size {
            var j = 0
            while j < q {
                let a = base + j, b = a + q, c = b + q, d = c + q
                let (y0r, y0i, y2r, y2i, y1r, y1i, y3r, y3i) = forwardButterfly(
                    load(re + a), load(im + a), load(re + b), load(im + b),
                    load(re + c), load(im + c), load(re + d), load(im + d))
                let (t1r, t1i) = multiply(y1r, y1i, load(w + j), load(w + q + j))
                let (t2r, t2i) = multiply(y2r, y2i, load(w + 2 * q + j), load(w + 3 * q + j))
                let (t3r, t3i) = multiply(y3r, y3i, load(w + 4 * q + j), load(w + 5 * q + j))
                store(y0r, re + a)
                store(y0i, im + a)
                store(t2r, re + b)
                store(t2i, im + b)
                store(t1r, re + c)
                store(t1i, im + c)
                store(t3r, re + d)
                store(t3i, im + d)
                j += 4
            }
            base += span
        }
    }

    /// Undoes `forwardRadix4` times 4.
    private static func inverseRadix4(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, span: Int,
        _ w: UnsafePointer<Float>
    ) {
        let q = span / 4
        var base = 0
        while base < size {
            var j = 0
            while j < q {
                let a = base + j, b = a + q, c = b + q, d = c + q
                let (y2r, y2i) = multiplyConjugate(load(re + b), load(im + b), load(w + 2 * q + j), load(w + 3 * q + j))
                let (y1r, y1i) = multiplyConjugate(load(re + c), load(im + c), load(w + j), load(w + q + j))
                let (y3r, y3i) = multiplyConjugate(load(re + d), load(im + d), load(w + 4 * q + j), load(w + 5 * q + j))
                let (xar, xai, xbr, xbi, xcr, xci, xdr, xdi) = inverseButterfly(
                    load(re + a), load(im + a), y2r, y2i, y1r, y1i, y3r, y3i)
                store(xar, re + a)
                store(xai, im + a)
                store(xbr, re + b)
                store(xbi, im + b)
                store(xcr, re + c)
                store(xci, im + c)
                store(xdr, re + d)
                store(xdi, im + d)
                j += 4
            }
            base += span
        }
    }

    /// Rows become columns: lane `k` of result `r` is lane `r` of argument `k`.
    @inline(__always)
    private static func transpose(
        _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        // Interleave pairs of rows, then join halves: the unpack/move-half pattern of SSE and NEON.
        var ab0 = SIMD4<Float>(), ab1 = SIMD4<Float>(), cd0 = SIMD4<Float>(), cd1 = SIMD4<Float>()
        (ab0.evenHalf, ab0.oddHalf, ab1.evenHalf, ab1.oddHalf) = (a.lowHalf, b.lowHalf, a.highHalf, b.highHalf)
        (cd0.evenHalf, cd0.oddHalf, cd1.evenHalf, cd1.oddHalf) = (c.lowHalf, d.lowHalf, c.highHalf, d.highHalf)
        return (SIMD4(lowHalf: ab0.lowHalf, highHalf: cd0.lowHalf), SIMD4(lowHalf: ab0.highHalf, highHalf: cd0.highHalf),
                SIMD4(lowHalf: ab1.lowHalf, highHalf: cd1.lowHalf), SIMD4(lowHalf: ab1.highHalf, highHalf: cd1.highHalf))
    }

    /// The last two radix-4 passes (spans 16 and 4) on each run of 16 values. The span-4 pass has no
    /// twiddles; it runs on the four runs of 4 at once after a transpose, and a second transpose puts its
    /// outputs back in place.
    private static func forwardSixteens(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, _ w: UnsafePointer<SIMD4<Float>>
    ) {
        var base = 0
        while base < size {
            let x = re + base, y = im + base
            let (y0r, y0i, y2r, y2i, y1r, y1i, y3r, y3i) = forwardButterfly(
                load(x), load(y), load(x + 4), load(y + 4), load(x + 8), load(y + 8), load(x + 12), load(y + 12))
            let (t1r, t1i) = multiply(y1r, y1i, w[0], w[1])
            let (t2r, t2i) = multiply(y2r, y2i, w[2], w[3])
            let (t3r, t3i) = multiply(y3r, y3i, w[4], w[5])
            // The runs of 4 in stored order are y0, t2, t1, t3; after the transpose, lane g is run g.
            let (ar, br, cr, dr) = transpose(y0r, t2r, t1r, t3r)
            let (ai, bi, ci, di) = transpose(y0i, t2i, t1i, t3i)
            let (z0r, z0i, z2r, z2i, z1r, z1i, z3r, z3i) = forwardButterfly(ar, ai, br, bi, cr, ci, dr, di)
            let (g0r, g1r, g2r, g3r) = transpose(z0r, z2r, z1r, z3r)
            let (g0i, g1i, g2i, g3i) = transpose(z0i, z2i, z1i, z3i)
            store(g0r, x)
            store(g0i, y)
            store(g1r, x + 4)
            store(g1i, y + 4)
            store(g2r, x + 8)
            store(g2i, y + 8)
            store(g3r, x + 12)
            store(g3i, y + 12)
            base += 16
        }
    }

    /// Undoes `forwardSixteens` times 16.
    private static func inverseSixteens(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, _ w: UnsafePointer<SIMD4<Float>>
    ) {
        var base = 0
        while base < size {
            let x = re + base, y = im + base
            let (z0r, z2r, z1r, z3r) = transpose(load(x), load(x + 4), load(x + 8), load(x + 12))
            let (z0i, z2i, z1i, z3i) = transpose(load(y), load(y + 4), load(y + 8), load(y + 12))
            let (ar, ai, br, bi, cr, ci, dr, di) = inverseButterfly(z0r, z0i, z2r, z2i, z1r, z1i, z3r, z3i)
            let (y0r, t2r, t1r, t3r) = transpose(ar, br, cr, dr)
            let (y0i, t2i, t1i, t3i) = transpose(ai, bi, ci, di)
            let (y1r, y1i) = multiplyConjugate(t1r, t1i, w[0], w[1])
            let (y2r, y2i) = multiplyConjugate(t2r, t2i, w[2], w[3])
            let (y3r, y3i) = multiplyConjugate(t3r, t3i, w[4], w[5])
            let (xar, xai, xbr, xbi, xcr, xci, xdr, xdi) = inverseButterfly(y0r, y0i, y2r, y2i, y1r, y1i, y3r, y3i)
            store(xar, x)
            store(xai, y)
            store(xbr, x + 4)
            store(xbi, y + 4)
            store(xcr, x + 8)
            store(xci, y + 8)
            store(xdr, x + 12)
            store(xdi, y + 12)
            base += 16
        }
    }
}
