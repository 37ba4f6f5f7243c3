import Foundation

/// A power-of-two complex FFT made for fast convolution: the forward transform leaves its bins in bit-reversed
/// order and the inverse takes them in that order, so neither pass reorders anything. A spectrum from
/// `forward` may be multiplied bin by bin with another from `forward` (or `spectrum(of:)`), never read by
/// frequency. Data is split complex. `inverse(forward(x)) == size * x`.
struct ConvolutionFFT: Sendable {
    /// Points per transform, a power of two of at least 16.
    let size: Int
    /// Twiddles `exp(-iπ j / h)`, `j < h`, for the passes of half-width `h = size/2, size/4, ... 8`,
    /// one contiguous run per pass, widest first.
    private let twiddleRe: [Float]
    private let twiddleIm: [Float]

    init(size: Int) {
        precondition(size >= 16 && size & (size - 1) == 0, "ConvolutionFFT needs a power of two >= 16")
        self.size = size
        var re: [Float] = []
        var im: [Float] = []
        var half = size / 2
        while half >= 8 {
            for j in 0..<half {
                let angle = -Double.pi * Double(j) / Double(half)
                re.append(Float(cos(angle)))
                im.append(Float(sin(angle)))
            }
            half /= 2
        }
        twiddleRe = re
        twiddleIm = im
    }

    /// The transform of `values` (`size` real values, zero imaginary parts) in double precision, rounded,
    /// in the bit-reversed order of `forward` and multiplied by `scale`.
    func spectrum(of values: [Double], scale: Double) -> (re: [Float], im: [Float]) {
        precondition(values.count == size)
        var re = values
        var im = [Double](repeating: 0, count: size)
        var half = size / 2
        while half >= 1 {
            for base in stride(from: 0, to: size, by: 2 * half) {
                for j in 0..<half {
                    let angle = -Double.pi * Double(j) / Double(half)
                    let (wr, wi) = (cos(angle), sin(angle))
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
        twiddleRe.withUnsafeBufferPointer { twr in
            twiddleIm.withUnsafeBufferPointer { twi in
                var half = size / 2
                var offset = 0
                while half >= 8 {
                    Self.forwardPass(re, im, size: size, half: half, twr.baseAddress! + offset, twi.baseAddress! + offset)
                    offset += half
                    half /= 2
                }
            }
        }
        Self.forwardLastPasses(re, im, size: size)
    }

    /// Decimation in time with conjugate twiddles, in place: bit-reversed order in, natural order out.
    func inverse(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>) {
        Self.inverseFirstPasses(re, im, size: size)
        twiddleRe.withUnsafeBufferPointer { twr in
            twiddleIm.withUnsafeBufferPointer { twi in
                var half = 8
                var offset = twr.count - 8
                while half < size {
                    Self.inversePass(re, im, size: size, half: half, twr.baseAddress! + offset, twi.baseAddress! + offset)
                    half *= 2
                    offset -= half
                }
            }
        }
    }

    @inline(__always)
    private static func load(_ pointer: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func store(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD8<Float>.self)
    }

    /// One radix-2 pass, `half >= 8`: `(a, b) -> (a + b, (a - b) w)`.
    private static func forwardPass(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, half: Int,
        _ twr: UnsafePointer<Float>, _ twi: UnsafePointer<Float>
    ) {
        var base = 0
        while base < size {
            var j = 0
            while j < half {
                let a = base + j
                let b = a + half
                let ar = load(re + a), ai = load(im + a)
                let br = load(re + b), bi = load(im + b)
                let wr = load(twr + j), wi = load(twi + j)
                store(ar + br, re + a)
                store(ai + bi, im + a)
                let dr = ar - br, di = ai - bi
                store(dr * wr - di * wi, re + b)
                store(dr * wi + di * wr, im + b)
                j += 8
            }
            base += 2 * half
        }
    }

    /// One radix-2 pass, `half >= 8`: `(a, b) -> (a + b conj(w), a - b conj(w))`, undoing `forwardPass` times 2.
    private static func inversePass(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int, half: Int,
        _ twr: UnsafePointer<Float>, _ twi: UnsafePointer<Float>
    ) {
        var base = 0
        while base < size {
            var j = 0
            while j < half {
                let a = base + j
                let b = a + half
                let ar = load(re + a), ai = load(im + a)
                let br0 = load(re + b), bi0 = load(im + b)
                let wr = load(twr + j), wi = load(twi + j)
                let br = br0 * wr + bi0 * wi, bi = bi0 * wr - br0 * wi
                store(ar + br, re + a)
                store(ai + bi, im + a)
                store(ar - br, re + b)
                store(ai - bi, im + b)
                j += 8
            }
            base += 2 * half
        }
    }

    /// The passes of half-width 4, 2 and 1 together, on each run of 8 values.
    private static func forwardLastPasses(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int) {
        let s = Float(0.5.squareRoot())
        var base = 0
        while base < size {
            let (x, y) = (re + base, im + base)
            // half 4: twiddles 1, (1 - i)/√2, -i, -(1 + i)/√2
            var ar = (x[0] + x[4], x[1] + x[5], x[2] + x[6], x[3] + x[7])
            var ai = (y[0] + y[4], y[1] + y[5], y[2] + y[6], y[3] + y[7])
            let d0r = x[0] - x[4], d0i = y[0] - y[4]
            let d1r = x[1] - x[5], d1i = y[1] - y[5]
            let d2r = x[2] - x[6], d2i = y[2] - y[6]
            let d3r = x[3] - x[7], d3i = y[3] - y[7]
            var br = (d0r, s * (d1r + d1i), d2i, s * (d3i - d3r))
            var bi = (d0i, s * (d1i - d1r), -d2r, -s * (d3r + d3i))
            // half 2 and 1 on each quartet: twiddles 1, -i then 1.
            func quartet(_ r: inout (Float, Float, Float, Float), _ i: inout (Float, Float, Float, Float)) {
                let e0r = r.0 + r.2, e0i = i.0 + i.2
                let e1r = r.1 + r.3, e1i = i.1 + i.3
                let f0r = r.0 - r.2, f0i = i.0 - i.2
                let f1r = i.1 - i.3, f1i = r.3 - r.1
                r = (e0r + e1r, e0r - e1r, f0r + f1r, f0r - f1r)
                i = (e0i + e1i, e0i - e1i, f0i + f1i, f0i - f1i)
            }
            quartet(&ar, &ai)
            quartet(&br, &bi)
            (x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]) = (ar.0, ar.1, ar.2, ar.3, br.0, br.1, br.2, br.3)
            (y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]) = (ai.0, ai.1, ai.2, ai.3, bi.0, bi.1, bi.2, bi.3)
            base += 8
        }
    }

    /// The inverses of the passes of half-width 1, 2 and 4, on each run of 8 values.
    private static func inverseFirstPasses(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, size: Int) {
        let s = Float(0.5.squareRoot())
        var base = 0
        while base < size {
            let (x, y) = (re + base, im + base)
            func quartet(_ r: (Float, Float, Float, Float), _ i: (Float, Float, Float, Float))
                -> ((Float, Float, Float, Float), (Float, Float, Float, Float)) {
                // half 1, then half 2 with twiddles 1, +i.
                let e0r = r.0 + r.1, e0i = i.0 + i.1
                let e1r = r.0 - r.1, e1i = i.0 - i.1
                let f0r = r.2 + r.3, f0i = i.2 + i.3
                let g0r = r.2 - r.3, g0i = i.2 - i.3
                let f1r = -g0i, f1i = g0r
                return ((e0r + f0r, e1r + f1r, e0r - f0r, e1r - f1r), (e0i + f0i, e1i + f1i, e0i - f0i, e1i - f1i))
            }
            let (ar, ai) = quartet((x[0], x[1], x[2], x[3]), (y[0], y[1], y[2], y[3]))
            let (br0, bi0) = quartet((x[4], x[5], x[6], x[7]), (y[4], y[5], y[6], y[7]))
            // half 4 with conjugate twiddles 1, (1 + i)/√2, +i, (-1 + i)/√2
            let br = (br0.0, s * (br0.1 - bi0.1), -bi0.2, -s * (br0.3 + bi0.3))
            let bi = (bi0.0, s * (br0.1 + bi0.1), br0.2, s * (br0.3 - bi0.3))
            (x[0], x[1], x[2], x[3]) = (ar.0 + br.0, ar.1 + br.1, ar.2 + br.2, ar.3 + br.3)
            (x[4], x[5], x[6], x[7]) = (ar.0 - br.0, ar.1 - br.1, ar.2 - br.2, ar.3 - br.3)
            (y[0], y[1], y[2], y[3]) = (ai.0 + bi.0, ai.1 + bi.1, ai.2 + bi.2, ai.3 + bi.3)
            (y[4], y[5], y[6], y[7]) = (ai.0 - bi.0, ai.1 - bi.1, ai.2 - bi.2, ai.3 - bi.3)
            base += 8
        }
    }
}
