import Foundation

/// The transform of real input of one fixed size: `size / 2 + 1` complex bins, as `numpy.fft.rfft` returns.
///
/// Even sizes pack the input into a complex FFT of half the size and untangle the halves; odd sizes run the
/// full complex FFT. Reusable scratch lives in `RealFFT.Workspace`, so a frame loop allocates nothing.
public struct RealFFT: Sendable {
    /// Real points per transform.
    public let size: Int
    /// Complex bins out: `size / 2 + 1`.
    public var binCount: Int { size / 2 + 1 }

    private let complex: FFT
    private let half: Bool
    /// `exp(-2πi k / size)` for the untangling step, k in 0..<size/2.
    private let unpackRe: [Float]
    private let unpackIm: [Float]

    /// Buffers one caller reuses across transforms of one `RealFFT`.
    public struct Workspace {
        var re: [Float]
        var im: [Float]
        var scratchRe: [Float]
        var scratchIm: [Float]
    }

    /// A plan for `size`-point real transforms.
    public init(size: Int) {
        precondition(size >= 1, "FFT size must be positive")
        self.size = size
        half = size % 2 == 0 && size >= 2
        complex = FFT(size: half ? size / 2 : size)
        var unpackRe: [Float] = []
        var unpackIm: [Float] = []
        if half {
            for k in 0..<(size / 2) {
                let angle = -2 * Double.pi * Double(k) / Double(size)
                unpackRe.append(Float(cos(angle)))
                unpackIm.append(Float(sin(angle)))
            }
        }
        self.unpackRe = unpackRe
        self.unpackIm = unpackIm
    }

    /// Fresh buffers for this plan.
    public func makeWorkspace() -> Workspace {
        let n = complex.size
        let scratch = complex.scratchCount
        return Workspace(re: [Float](repeating: 0, count: n), im: [Float](repeating: 0, count: n),
                         scratchRe: [Float](repeating: 0, count: scratch),
                         scratchIm: [Float](repeating: 0, count: scratch))
    }

    /// The bins of `input` (`size` values).
    public func forward(_ input: [Float]) -> (real: [Float], imag: [Float]) {
        precondition(input.count == size, "real FFT of size \(size) given \(input.count) values")
        var workspace = makeWorkspace()
        var real = [Float](repeating: 0, count: binCount)
        var imag = [Float](repeating: 0, count: binCount)
        input.withUnsafeBufferPointer { source in
            real.withUnsafeMutableBufferPointer { re in
                imag.withUnsafeMutableBufferPointer { im in
                    forward(source.baseAddress!, real: re.baseAddress!, imag: im.baseAddress!, workspace: &workspace)
                }
            }
        }
        return (real, imag)
    }

    /// Writes the `binCount` bins of the `size` values at `input` to `real` and `imag`.
    public func forward(
        _ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>, imag: UnsafeMutablePointer<Float>,
        workspace: inout Workspace
    ) {
        Self.withPointers(&workspace.re, &workspace.im, &workspace.scratchRe, &workspace.scratchIm) { zr, zi, sr, si in
            transform(input, real: real, imag: imag, zr: zr, zi: zi, scratchRe: sr, scratchIm: si)
        }
    }

    /// Buffers one caller reuses across eight-at-once transforms (`forward(lanes:...)`).
    struct LanesWorkspace {
        var re: [SIMD8<Float>]
        var im: [SIMD8<Float>]
        var scratchRe: [SIMD8<Float>]
        var scratchIm: [SIMD8<Float>]
    }

    func makeLanesWorkspace() -> LanesWorkspace {
        let n = complex.size
        let scratch = complex.scratchCount
        return LanesWorkspace(re: [SIMD8<Float>](repeating: .zero, count: n), im: [SIMD8<Float>](repeating: .zero, count: n),
                              scratchRe: [SIMD8<Float>](repeating: .zero, count: scratch),
                              scratchIm: [SIMD8<Float>](repeating: .zero, count: scratch))
    }

    /// Eight transforms at once, one per lane: `size` lanes of input, `binCount` lanes of bins out. Each lane
    /// gets exactly the arithmetic of `forward(_:real:imag:workspace:)`.
    func forward(
        lanes input: UnsafePointer<SIMD8<Float>>, real: UnsafeMutablePointer<SIMD8<Float>>,
        imag: UnsafeMutablePointer<SIMD8<Float>>, workspace: inout LanesWorkspace
    ) {
        Self.withPointers(&workspace.re, &workspace.im, &workspace.scratchRe, &workspace.scratchIm) { zr, zi, sr, si in
            transform(input, real: real, imag: imag, zr: zr, zi: zi, scratchRe: sr, scratchIm: si)
        }
    }

    /// The forward transform for scalars or eight lanes, in the work buffers `zr`/`zi` (the complex FFT's
    /// size) and the scratch it needs.
    private func transform<V: FFTLanes>(
        _ input: UnsafePointer<V>, real: UnsafeMutablePointer<V>, imag: UnsafeMutablePointer<V>,
        zr: UnsafeMutablePointer<V>, zi: UnsafeMutablePointer<V>,
        scratchRe: UnsafeMutablePointer<V>, scratchIm: UnsafeMutablePointer<V>
    ) {
        let n = complex.size
        if !half {
            for index in 0..<n {
                zr[index] = input[index]
                zi[index] = .zero
            }
            V.forward(complex, zr, zi, scratchRe: scratchRe, scratchIm: scratchIm)
            for k in 0..<binCount {
                real[k] = zr[k]
                imag[k] = zi[k]
            }
            return
        }
        // Even samples become the real part, odd ones the imaginary part.
        for index in 0..<n {
            zr[index] = input[2 * index]
            zi[index] = input[2 * index + 1]
        }
        V.forward(complex, zr, zi, scratchRe: scratchRe, scratchIm: scratchIm)
        real[0] = zr[0] + zi[0]
        imag[0] = .zero
        real[n] = zr[0] - zi[0]
        imag[n] = .zero
        unpackRe.withUnsafeBufferPointer { wr in
            unpackIm.withUnsafeBufferPointer { wi in
                for k in 1..<max(1, n) {
                    // E = (Z[k] + conj Z[n-k]) / 2, O = (Z[k] - conj Z[n-k]) / 2i, X = E + W^k O.
                    let ar = zr[k], ai = zi[k]
                    let br = zr[n - k], bi = -zi[n - k]
                    let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
                    let or = 0.5 * (ai - bi), oi = -0.5 * (ar - br)
                    real[k] = er + wr[k] * or - wi[k] * oi
                    imag[k] = ei + wr[k] * oi + wi[k] * or
                }
            }
        }
    }

    /// The storage of a workspace's four buffers, for one transform.
    private static func withPointers<V, Result>(
        _ re: inout [V], _ im: inout [V], _ scratchRe: inout [V], _ scratchIm: inout [V],
        _ body: (UnsafeMutablePointer<V>, UnsafeMutablePointer<V>, UnsafeMutablePointer<V>, UnsafeMutablePointer<V>) -> Result
    ) -> Result {
        re.withUnsafeMutableBufferPointer { zr in
            im.withUnsafeMutableBufferPointer { zi in
                scratchRe.withUnsafeMutableBufferPointer { sr in
                    scratchIm.withUnsafeMutableBufferPointer { si in
                        body(zr.baseAddress!, zi.baseAddress!, sr.baseAddress!, si.baseAddress!)
                    }
                }
            }
        }
    }

    /// The `size` real values whose bins are `real`/`imag` (`binCount` each): `numpy.fft.irfft`, scaled by 1/N.
    /// The imaginary parts of bin 0 and (for even sizes) bin N/2 are ignored.
    public func inverse(real: [Float], imag: [Float]) -> [Float] {
        precondition(real.count == binCount && imag.count == binCount, "inverse real FFT needs \(binCount) bins")
        var workspace = makeWorkspace()
        var output = [Float](repeating: 0, count: size)
        real.withUnsafeBufferPointer { re in
            imag.withUnsafeBufferPointer { im in
                output.withUnsafeMutableBufferPointer { out in
                    inverse(real: re.baseAddress!, imag: im.baseAddress!, into: out.baseAddress!, workspace: &workspace)
                }
            }
        }
        return output
    }

    /// Writes the `size` real values whose bins are at `real`/`imag` to `output`, scaled by 1/N.
    public func inverse(
        real: UnsafePointer<Float>, imag: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
        workspace: inout Workspace
    ) {
        let n = complex.size
        Self.withPointers(&workspace.re, &workspace.im, &workspace.scratchRe, &workspace.scratchIm) { zr, zi, sr, si in
            if !half {
                // Rebuild the Hermitian spectrum and take a conjugated forward transform.
                for k in 0..<n {
                    if k < binCount {
                        zr[k] = real[k]
                        zi[k] = k == 0 ? 0 : -imag[k]
                    } else {
                        zr[k] = real[n - k]
                        zi[k] = imag[n - k]
                    }
                }
                complex.forward(zr, zi, scratchRe: sr, scratchIm: si)
                let scale = 1 / Float(n)
                for index in 0..<n { output[index] = zr[index] * scale }
                return
            }
            unpackRe.withUnsafeBufferPointer { wr in
                unpackIm.withUnsafeBufferPointer { wi in
                    for k in 0..<n {
                        // E = (X[k] + conj X[n-k]) / 2, O = (X[k] - conj X[n-k]) / (2 W^k), Z = E + iO;
                        // conjugated so that the forward transform inverts it.
                        let ar = real[k], ai = k == 0 ? 0 : imag[k]
                        let br = real[n - k], bi = (n - k == n) ? 0 : -imag[n - k]
                        let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
                        let dr = 0.5 * (ar - br), di = 0.5 * (ai - bi)
                        // Dividing by W^k multiplies by its conjugate.
                        let or = dr * wr[k] + di * wi[k], oi = di * wr[k] - dr * wi[k]
                        zr[k] = er - oi
                        zi[k] = -(ei + or)
                    }
                }
            }
            complex.forward(zr, zi, scratchRe: sr, scratchIm: si)
            let scale = 1 / Float(n)
            for index in 0..<n {
                output[2 * index] = zr[index] * scale
                output[2 * index + 1] = -zi[index] * scale
            }
        }
    }
}
