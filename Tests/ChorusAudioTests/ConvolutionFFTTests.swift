import ChorusDSP
import Foundation
import Testing
@testable import ChorusAudio

@Suite struct ConvolutionFFTTests {
    /// Every pass layout: 16 (the in-register passes only), odd powers (a radix-2 pass first), even powers.
    static let sizes = [16, 32, 64, 128, 256, 512, 1024, 2048]

    static func bitReversed(_ index: Int, bits: Int) -> Int {
        var (index, result) = (index, 0)
        for _ in 0..<bits {
            result = result << 1 | index & 1
            index >>= 1
        }
        return result
    }

    /// The DFT by definition, in double precision.
    static func dft(_ re: [Float], _ im: [Float]) -> (re: [Double], im: [Double]) {
        let n = re.count
        var outRe = [Double](repeating: 0, count: n), outIm = [Double](repeating: 0, count: n)
        for k in 0..<n {
            for t in 0..<n {
                let angle = -2 * Double.pi * Double(k * t % n) / Double(n)
                outRe[k] += Double(re[t]) * cos(angle) - Double(im[t]) * sin(angle)
                outIm[k] += Double(re[t]) * sin(angle) + Double(im[t]) * cos(angle)
            }
        }
        return (outRe, outIm)
    }

    static func noise(_ count: Int, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in Float.random(in: -1...1, using: &random) }
    }

    @Test(arguments: sizes)
    func forwardIsTheDFTInBitReversedOrder(_ size: Int) {
        let re = Self.noise(size, seed: UInt64(size)), im = Self.noise(size, seed: UInt64(size) + 1)
        let expected = Self.dft(re, im)
        var (xr, xi) = (re, im)
        let fft = ConvolutionFFT(size: size)
        xr.withUnsafeMutableBufferPointer { r in xi.withUnsafeMutableBufferPointer { i in fft.forward(r.baseAddress!, i.baseAddress!) } }
        let bits = size.trailingZeroBitCount
        var error = 0.0
        for slot in 0..<size {
            let bin = Self.bitReversed(slot, bits: bits)
            error = max(error, abs(Double(xr[slot]) - expected.re[bin]), abs(Double(xi[slot]) - expected.im[bin]))
        }
        // Unit-variance-ish input: bins grow like sqrt(size); float rounding stays far below that.
        #expect(error / Double(size).squareRoot() < 2e-6, "size \(size): \(error)")
    }

    @Test(arguments: sizes)
    func inverseUndoesForwardTimesSize(_ size: Int) {
        let re = Self.noise(size, seed: 3), im = Self.noise(size, seed: 4)
        var (xr, xi) = (re, im)
        let fft = ConvolutionFFT(size: size)
        xr.withUnsafeMutableBufferPointer { r in
            xi.withUnsafeMutableBufferPointer { i in
                fft.forward(r.baseAddress!, i.baseAddress!)
                fft.inverse(r.baseAddress!, i.baseAddress!)
            }
        }
        let error = (0..<size).map { max(abs(xr[$0] / Float(size) - re[$0]), abs(xi[$0] / Float(size) - im[$0])) }.max()!
        #expect(error < 1e-5, "size \(size): \(error)")
    }

    @Test(arguments: [16, 128, 1024])
    func spectrumMatchesForwardOnRealInput(_ size: Int) {
        let values = Self.noise(size, seed: 9)
        let fft = ConvolutionFFT(size: size)
        let (sr, si) = fft.spectrum(of: values.map(Double.init), scale: 0.5)
        var xr = values, xi = [Float](repeating: 0, count: size)
        xr.withUnsafeMutableBufferPointer { r in xi.withUnsafeMutableBufferPointer { i in fft.forward(r.baseAddress!, i.baseAddress!) } }
        let error = (0..<size).map { max(abs(0.5 * xr[$0] - sr[$0]), abs(0.5 * xi[$0] - si[$0])) }.max()!
        #expect(error < 1e-5 * Float(size).squareRoot(), "size \(size): \(error)")
    }

    /// Circular convolution through the transforms, as the sharp stage uses them, against the direct sum.
    @Test func productOfSpectraIsCircularConvolution() {
        let size = 256
        let signal = Self.noise(size, seed: 11), kernel = Self.noise(size, seed: 12)
        let fft = ConvolutionFFT(size: size)
        let (hr, hi) = fft.spectrum(of: kernel.map(Double.init), scale: 1 / Double(size))
        var xr = signal, xi = [Float](repeating: 0, count: size)
        xr.withUnsafeMutableBufferPointer { r in
            xi.withUnsafeMutableBufferPointer { i in
                let (r, i) = (r.baseAddress!, i.baseAddress!)
                fft.forward(r, i)
                for k in 0..<size {
                    (r[k], i[k]) = (r[k] * hr[k] - i[k] * hi[k], r[k] * hi[k] + i[k] * hr[k])
                }
                fft.inverse(r, i)
            }
        }
        for n in 0..<size {
            let direct = (0..<size).reduce(0.0) { $0 + Double(signal[$1]) * Double(kernel[(n - $1 + size) % size]) }
            #expect(abs(Double(xr[n]) - direct) < 1e-4, "sample \(n)")
            #expect(abs(xi[n]) < 1e-4, "sample \(n)")
        }
    }
}
