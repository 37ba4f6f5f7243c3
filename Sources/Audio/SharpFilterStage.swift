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
    /// The filter's spectrum in the order of `ConvolutionFFT.forward`, with the scale of the inverse folded in.
    private let spectrumRe: [Float]
    private let spectrumIm: [Float]

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
        var size = 1024
        while size < 3 * reach { size *= 2 }
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
        (spectrumRe, spectrumIm) = full.spectrum(of: impulse, scale: 1 / Double(size))
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
    mutating func process(_ samples: [Float]) -> [Float] {
        buffer += samples
        return drain()
    }

    /// Flushes with zeros until at least `total` outputs have been returned in all (no more than `total`
    /// unless `process` already returned more), then resets.
    mutating func finish(total: Int) -> [Float] {
        defer { reset() }
        var tail: [Float] = []
        while emitted < total {
            buffer += [Float](repeating: 0, count: max(span - buffer.count, 0))
            tail += drain()
        }
        tail.removeLast(min(tail.count, emitted - total))
        return tail
    }

    /// Inputs a pair of blocks reads, and inputs from one pair to the next.
    private var span: Int { mode == .decimate ? full.size + block : (full.size + block) / 2 }
    private var stride: Int { mode == .decimate ? 2 * block : block }

    private mutating func drain() -> [Float] {
        let span = span, stride = stride
        guard buffer.count >= span else { return [] }
        let ready = (buffer.count - span) / stride + 1
        let decimate = mode == .decimate
        // Decimation keeps block / 2 outputs per block; interpolation makes `block` per block.
        let perPair = decimate ? block : 2 * block
        var output = [Float](repeating: 0, count: ready * perPair)
        let (full, half, block, reach) = (full, half, block, reach)
        let size = full.size
        var work = [Float](repeating: 0, count: 2 * size)
        buffer.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                work.withUnsafeMutableBufferPointer { work in
                    spectrumRe.withUnsafeBufferPointer { hr in
                        spectrumIm.withUnsafeBufferPointer { hi in
                            let zr = work.baseAddress!, zi = zr + size
                            let hr = hr.baseAddress!, hi = hi.baseAddress!
                            for pair in 0..<ready {
                                // Two blocks in one transform: the first in the real part, the second in the
                                // imaginary part; the filter is real, so they come back the same way.
                                let first = input.baseAddress! + pair * stride
                                let target = out.baseAddress! + pair * perPair
                                if decimate {
                                    zr.update(from: first, count: size)
                                    zi.update(from: first + block, count: size)
                                    full.forward(zr, zi)
                                    Self.multiplyAndFold(zr, zi, hr, hi, count: size)
                                    half.inverse(zr, zi)
                                    // Outputs at F / 2 start at reach / 2... of the valid part [2 reach, size).
                                    target.update(from: zr + reach, count: block / 2)
                                    (target + block / 2).update(from: zi + reach, count: block / 2)
                                } else {
                                    zr.update(from: first, count: size / 2)
                                    zi.update(from: first + block / 2, count: size / 2)
                                    half.forward(zr, zi)
                                    Self.repeatAndMultiply(zr, zi, hr, hi, count: size)
                                    full.inverse(zr, zi)
                                    target.update(from: zr + 2 * reach, count: block)
                                    (target + block).update(from: zi + 2 * reach, count: block)
                                }
                            }
                        }
                    }
                }
            }
        }
        buffer.removeFirst(ready * stride)
        emitted += output.count
        return output
    }

    /// `z = z h`, then bins k and k + N/2 (adjacent in bit-reversed order) summed into the first half:
    /// the spectrum of every other sample.
    private static func multiplyAndFold(
        _ zr: UnsafeMutablePointer<Float>, _ zi: UnsafeMutablePointer<Float>,
        _ hr: UnsafePointer<Float>, _ hi: UnsafePointer<Float>, count: Int
    ) {
        for q in 0..<(count / 2) {
            let (a, b) = (2 * q, 2 * q + 1)
            let re = zr[a] * hr[a] - zi[a] * hi[a] + zr[b] * hr[b] - zi[b] * hi[b]
            let im = zr[a] * hi[a] + zi[a] * hr[a] + zr[b] * hi[b] + zi[b] * hr[b]
            zr[q] = re
            zi[q] = im
        }
    }

    /// The half-size spectrum in the first half of `z` repeated (the spectrum of the signal with zeros
    /// between its samples), times `h`, over all `count` bins. Runs backwards so it can work in place.
    private static func repeatAndMultiply(
        _ zr: UnsafeMutablePointer<Float>, _ zi: UnsafeMutablePointer<Float>,
        _ hr: UnsafePointer<Float>, _ hi: UnsafePointer<Float>, count: Int
    ) {
        var q = count / 2 - 1
        while q >= 0 {
            let (xr, xi) = (zr[q], zi[q])
            let (a, b) = (2 * q, 2 * q + 1)
            zr[a] = xr * hr[a] - xi * hi[a]
            zi[a] = xr * hi[a] + xi * hr[a]
            zr[b] = xr * hr[b] - xi * hi[b]
            zi[b] = xr * hi[b] + xi * hr[b]
            q -= 1
        }
    }
}
