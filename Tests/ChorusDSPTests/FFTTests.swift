import Foundation
import Testing
@testable import ChorusDSP

/// The DFT by definition, in double precision.
func naiveDFT(_ re: [Float], _ im: [Float]) -> (re: [Double], im: [Double]) {
    let n = re.count
    var outRe = [Double](repeating: 0, count: n)
    var outIm = [Double](repeating: 0, count: n)
    for k in 0..<n {
        for t in 0..<n {
            let angle = -2 * Double.pi * Double((k * t) % n) / Double(n)
            outRe[k] += Double(re[t]) * cos(angle) - Double(im[t]) * sin(angle)
            outIm[k] += Double(re[t]) * sin(angle) + Double(im[t]) * cos(angle)
        }
    }
    return (outRe, outIm)
}

@Suite struct FFTTests {
    // Speech sizes, every radix, direct primes and Bluestein primes.
    static let sizes = [1, 2, 3, 5, 7, 16, 49, 97, 143, 400, 512, 1024, 1920, 1021, 2 * 509]

    @Test(arguments: sizes)
    func complexMatchesTheDefinition(_ size: Int) {
        var random = SeededRandom(seed: UInt64(size))
        var re = random.gaussians(size)
        var im = random.gaussians(size)
        let expected = naiveDFT(re, im)
        FFT(size: size).forward(real: &re, imag: &im)
        let scale = sqrt(Double(size))
        let error = (0..<size).map { max(abs(Double(re[$0]) - expected.re[$0]), abs(Double(im[$0]) - expected.im[$0])) }.max()!
        #expect(error / scale < 2e-5, "size \(size): \(error)")
        let original = (re, im)
        var (backRe, backIm) = original
        FFT(size: size).inverse(real: &backRe, imag: &backIm)
        var forwardAgainRe = backRe, forwardAgainIm = backIm
        FFT(size: size).forward(real: &forwardAgainRe, imag: &forwardAgainIm)
        #expect(zip(forwardAgainRe, original.0).allSatisfy { abs($0 - $1) < 1e-3 })
    }

    /// Eight transforms at once, one per lane (the STFT's path), against the definition and against the
    /// one-at-a-time transform, which every lane must match bit for bit.
    @Test(arguments: [1, 16, 49, 97, 400, 512, 1920, 1021])
    func lanesMatchTheDefinitionAndTheScalarTransform(_ size: Int) {
        var random = SeededRandom(seed: UInt64(size) + 1000)
        let inputs = (0..<8).map { _ in (random.gaussians(size), random.gaussians(size)) }
        let fft = FFT(size: size)
        var re = (0..<size).map { index in SIMD8<Float>((0..<8).map { inputs[$0].0[index] }) }
        var im = (0..<size).map { index in SIMD8<Float>((0..<8).map { inputs[$0].1[index] }) }
        var scratchRe = [SIMD8<Float>](repeating: .zero, count: fft.scratchCount), scratchIm = scratchRe
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                scratchRe.withUnsafeMutableBufferPointer { sr in
                    scratchIm.withUnsafeMutableBufferPointer { si in
                        fft.forward(lanes: re.baseAddress!, im.baseAddress!, scratchRe: sr.baseAddress!, scratchIm: si.baseAddress!)
                    }
                }
            }
        }
        for lane in 0..<8 {
            var (scalarRe, scalarIm) = inputs[lane]
            fft.forward(real: &scalarRe, imag: &scalarIm)
            #expect((0..<size).allSatisfy { re[$0][lane] == scalarRe[$0] && im[$0][lane] == scalarIm[$0] }, "size \(size) lane \(lane)")
            let expected = naiveDFT(inputs[lane].0, inputs[lane].1)
            let error = (0..<size).map { max(abs(Double(re[$0][lane]) - expected.re[$0]), abs(Double(im[$0][lane]) - expected.im[$0])) }.max()!
            #expect(error / sqrt(Double(size)) < 2e-5, "size \(size) lane \(lane): \(error)")
        }
    }

    @Test(arguments: sizes + [4, 6, 18])
    func realMatchesComplexAndInverts(_ size: Int) {
        var random = SeededRandom(seed: 99)
        let input = random.gaussians(size)
        let plan = RealFFT(size: size)
        let (re, im) = plan.forward(input)
        let expected = naiveDFT(input, [Float](repeating: 0, count: size))
        #expect(re.count == size / 2 + 1)
        for k in 0..<re.count {
            #expect(abs(Double(re[k]) - expected.re[k]) < 1e-4 * Double(size), "size \(size) bin \(k)")
            #expect(abs(Double(im[k]) - expected.im[k]) < 1e-4 * Double(size), "size \(size) bin \(k)")
        }
        let back = plan.inverse(real: re, imag: im)
        #expect(zip(back, input).allSatisfy { abs($0 - $1) < 1e-4 }, "size \(size)")
    }
}

@Suite struct STFTTests {
    @Test(arguments: [(512, 128, true), (400, 160, true), (1920, 480, true), (16, 4, false)])
    func inverseReconstructsTheSignal(_ fftSize: Int, _ hop: Int, _ periodic: Bool) {
        var random = SeededRandom(seed: 3)
        let signal = random.gaussians(5000)
        let stft = STFT.centered(fftSize: fftSize, hopLength: hop, window: Window.hann(fftSize, periodic: periodic))
        let (re, im) = stft.spectrogram(signal)
        #expect(re.rows == 1 + signal.count / hop)
        let back = stft.inverse(real: re, imag: im, length: signal.count)
        let error = zip(back, signal).map { abs($0 - $1) }.max()!
        #expect(error < 1e-4, "\(fftSize)/\(hop): \(error)")
    }

    @Test func paddingModesMirrorLikeNumpy() {
        // numpy.pad([1, 2, 3], 3, mode="reflect") = [2, 3, 2, 1, 2, 3, 2, 1, 2]; "symmetric" = [3, 2, 1, 1, 2, 3, 3, 2, 1]
        let reflect = (-3..<6).map { STFT.sourceIndex($0, count: 3, mode: .reflect)! + 1 }
        let symmetric = (-3..<6).map { STFT.sourceIndex($0, count: 3, mode: .symmetric)! + 1 }
        #expect(reflect == [2, 3, 2, 1, 2, 3, 2, 1, 2])
        #expect(symmetric == [3, 2, 1, 1, 2, 3, 3, 2, 1])
        #expect(STFT.sourceIndex(-1, count: 3, mode: .zeros) == nil)
    }

    @Test func windowsMatchTheirDefinitions() {
        #expect(Window.hann(4, periodic: true) == [0, 0.5, 1, 0.5])
        let symmetric = Window.hann(5, periodic: false)
        #expect(symmetric[2] == 1 && symmetric[0] == 0 && symmetric[4] == 0)
        let povey = Window.povey(5)
        #expect(abs(povey[1] - pow(Float(0.5), 0.85)) < 1e-6)
        #expect(Window.centered([1, 1], in: 6) == [0, 0, 1, 1, 0, 0])
    }

    @Test func shortSignalsNeverCrashNorGiveNaN() {
        // 160 and 161 samples are one valid NeMo frame, where NeMo's n - 1 deviation would be NaN.
        for count in [0, 1, 2, 3, 4, 159, 160, 161, 319] {
            let signal = (0..<count).map { Float(sin(Double($0) * 0.3)) * 0.5 }
            for kind in FeatureKind.allCases {
                let features = kind.extractor(signal)
                #expect(features.values.allSatisfy { $0.isFinite }, "\(kind) on \(count) samples")
            }
        }
    }
}

@Suite struct SignalToolTests {
    @Test func seededRandomGaussiansAreSeededAndStandard() {
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        let x = a.gaussians(100_000)
        #expect(x == b.gaussians(100_000))
        let mean = x.reduce(0, +) / Float(x.count)
        let variance = x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Float(x.count)
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 1) < 0.02)
    }

    @Test func l2NormalizationGivesUnitLength() {
        #expect(L2Normalization.normalized([3, 4]) == [0.6, 0.8])
        #expect(L2Normalization.normalized([0, 0]) == [0, 0])
    }

    @Test func linearResizeMatchesTorchInterpolate() {
        // torch.nn.functional.interpolate(torch.tensor([[[0., 1., 2., 3.]]]), size=6, mode="linear")
        let up = LinearResize.resize([0, 1, 2, 3], to: 6)
        let expected: [Float] = [0, 0.5, 1.1666666, 1.8333334, 2.5, 3]
        #expect(zip(up, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(up)")
        #expect(LinearResize.resize([0, 1, 2, 3], to: 2) == [0.5, 2.5])
        #expect(LinearResize.resize([0, 10], to: 3, alignCorners: true) == [0, 5, 10])
    }

    @Test func npyRoundTripsAndReadsNumpyHeaders() throws {
        let array = try NPYFile(shape: [2, 3], values: [1, 2, 3, 4, 5, 6])
        let decoded = try NPYFile.decode(array.encoded())
        #expect(decoded == array)
        #expect(decoded.rows == [[1, 2, 3], [4, 5, 6]])
        #expect(throws: NPYError.self) { try NPYFile.decode(Data([1, 2, 3])) }
        #expect(throws: NPYError.self) { try NPYFile(shape: [2, 2], values: [1]) }
    }
}

@Suite struct SeededRandomStreamTests {
    @Test func gaussiansOneAtATimeEqualTheBatch() {
        var one = SeededRandom(seed: 5), batch = SeededRandom(seed: 5)
        let single = (0..<7).map { _ in one.gaussian() }
        #expect(single == batch.gaussians(7))
        // The odd count kept its pair's sine value for the next call.
        #expect(one.gaussian() == batch.gaussian())
        // Box-Muller with u1 = 1 - uniform(), cosine first, as the CosyVoice Python reference draws.
        var uniforms = SeededRandom(seed: 5)
        let u1 = 1 - uniforms.uniform(), u2 = uniforms.uniform()
        #expect(single[0] == Float((-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)))
        #expect(single[1] == Float((-2 * log(u1)).squareRoot() * sin(2 * Double.pi * u2)))
    }
}
