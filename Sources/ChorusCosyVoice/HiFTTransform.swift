import Foundation

/// HiFT's short-time Fourier transform pair: n_fft 16, hop 4, periodic Hann, centred with reflect
/// padding (torch.stft / torch.istft with center=True), written for this one size.
///
/// A 16-point transform is too small for a general FFT to pay: here each is a handful of additions
/// and multiplications by the constants cos(k pi / 8), eight frames at a time, one per SIMD lane.
/// Because the hop is a quarter of the frame, sample n of eight consecutive frames sits at eight
/// consecutive positions of one of four "phase" planes (plane n mod 4, offset n / 4), so lanes are
/// loaded and overlap-added with plain vector loads and stores.
enum HiFTTransform {
    static let size = 16
    static let hop = 4
    /// Frequency bins of the one-sided spectrum.
    static let bins = 9

    /// Periodic Hann: 0.5 - 0.5 cos(2 pi n / 16), computed in double and rounded once.
    static let window: [Float] = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }

    /// Frames of the centred STFT of `count` samples.
    static func frameCount(samples count: Int) -> Int { count / hop + 1 }

    /// The centred STFT of `signal` into `spectrum`, channel-major [18, frames]: 9 real rows then 9
    /// imaginary rows (torch's sign: X_k = sum x_n e^(-2 pi i k n / 16)). `signal.count` must be a
    /// multiple of 4 and at least 9 (reflect padding needs 8 samples each side).
    static func forward(_ signal: UnsafeBufferPointer<Float>, into spectrum: UnsafeMutableBufferPointer<Float>) {
        let frames = frameCount(samples: signal.count)
        precondition(signal.count % hop == 0 && signal.count > size / 2 && spectrum.count == 2 * bins * frames)
        // Phase planes of the padded signal, plane r holding padded[4b + r]; 8 spare blocks so the
        // last group of lanes reads (ignored) zeros instead of past the end.
        let blocks = (signal.count + size) / hop + 8
        var planes = [Float](repeating: 0, count: hop * blocks)
        planes.withUnsafeMutableBufferPointer { planes in
            let count = signal.count
            // The two blocks at each end reflect; the ones between copy four samples to the four planes.
            let padded = count + size
            for index in Array(0..<(size / 2)) + Array((padded - size / 2)..<padded) {
                var source = index - size / 2
                if source < 0 { source = -source } else if source >= count { source = 2 * (count - 1) - source }
                planes[(index % hop) * blocks + index / hop] = signal[source]
            }
            for block in (size / 2 / hop)..<((padded - size / 2) / hop) {
                let source = hop * block - size / 2
                planes[block] = signal[source]
                planes[blocks + block] = signal[source + 1]
                planes[2 * blocks + block] = signal[source + 2]
                planes[3 * blocks + block] = signal[source + 3]
            }
            let plane = UnsafeRawPointer(planes.baseAddress!)
            let out = UnsafeMutableRawPointer(spectrum.baseAddress!)
            let w = window
            var frame = 0
            while frame < frames {
                // y_n = w_n x_n for eight frames; w_0 = 0.
                func y(_ n: Int) -> SIMD8<Float> {
                    plane.loadUnaligned(fromByteOffset: 4 * ((n % hop) * blocks + frame + n / hop), as: SIMD8<Float>.self) * w[n]
                }
                let y8 = y(8)
                // a_n = y_n + y_(16-n), b_n = y_n - y_(16-n); then folded again about n = 4.
                let y1 = y(1), y15 = y(15), y2 = y(2), y14 = y(14), y3 = y(3), y13 = y(13)
                let y4 = y(4), y12 = y(12), y5 = y(5), y11 = y(11), y6 = y(6), y10 = y(10), y7 = y(7), y9 = y(9)
                let a1 = y1 + y15, a2 = y2 + y14, a3 = y3 + y13, a4 = y4 + y12, a5 = y5 + y11, a6 = y6 + y10, a7 = y7 + y9
                let b1 = y1 - y15, b2 = y2 - y14, b3 = y3 - y13, b4 = y4 - y12, b5 = y5 - y11, b6 = y6 - y10, b7 = y7 - y9
                let c1 = a1 + a7, c2 = a2 + a6, c3 = a3 + a5
                let d1 = a1 - a7, d2 = a2 - a6, d3 = a3 - a5
                let g1 = b1 + b7, g2 = b2 + b6, g3 = b3 + b5
                let e1 = b1 - b7, e2 = b2 - b6, e3 = b3 - b5
                let even = y8, odd = -y8      // y_0 = 0
                let (k1, k2, k3) = (Constants.c1, Constants.c2, Constants.c3)

                var real = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(),
                            SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                real.0 = even + c1 + c2 + c3 + a4
                real.2 = even + (c1 - c3) * k2 - a4
                real.4 = even - c2 + a4
                real.6 = even - (c1 - c3) * k2 - a4
                real.8 = even - c1 + c2 - c3 + a4
                real.1 = odd + d1 * k1 + d2 * k2 + d3 * k3
                real.3 = odd + d1 * k3 - d2 * k2 - d3 * k1
                real.5 = odd - d1 * k3 - d2 * k2 + d3 * k1
                real.7 = odd - d1 * k1 + d2 * k2 - d3 * k3
                // sin(m pi / 8) = cos((4 - m) pi / 8): s1 = k3, s2 = k2, s3 = k1.
                let imag1 = -(g1 * k3 + g2 * k2 + g3 * k1 + b4)
                let imag3 = -(g1 * k1 + g2 * k2 - g3 * k3 - b4)
                let imag5 = -(g1 * k1 - g2 * k2 - g3 * k3 + b4)
                let imag7 = -(g1 * k3 - g2 * k2 + g3 * k1 - b4)
                let imag2 = -((e1 + e3) * k2 + e2)
                let imag4 = -(e1 - e3)
                let imag6 = -((e1 + e3) * k2 - e2)

                let lanes = min(8, frames - frame)
                func store(_ row: Int, _ value: SIMD8<Float>) {
                    if lanes == 8 {
                        out.storeBytes(of: value, toByteOffset: 4 * (row * frames + frame), as: SIMD8<Float>.self)
                    } else {
                        for lane in 0..<lanes { spectrum[row * frames + frame + lane] = value[lane] }
                    }
                }
                store(0, real.0); store(1, real.1); store(2, real.2); store(3, real.3); store(4, real.4)
                store(5, real.5); store(6, real.6); store(7, real.7); store(8, real.8)
                store(9, SIMD8()); store(10, imag1); store(11, imag2); store(12, imag3); store(13, imag4)
                store(14, imag5); store(15, imag6); store(16, imag7); store(17, SIMD8())
                frame += 8
            }
        }
    }

    /// torch.istft (center=True) of channel-major [9, frames] magnitude (clipped to `magnitudeLimit`) and
    /// phase: an inverse real DFT per frame (the imaginary parts of bins 0 and 8 ignored, as irfft does),
    /// windowed overlap-add divided by the summed squared window, n_fft / 2 trimmed at both ends, then
    /// clipped to +-`audioLimit`. Writes hop x (frames - 1) samples into `audio`.
    static func inverse(magnitude: UnsafeBufferPointer<Float>, phase: UnsafeBufferPointer<Float>, frames: Int,
                        magnitudeLimit: Float, audioLimit: Float, into audio: UnsafeMutableBufferPointer<Float>) {
        precondition(frames >= 1 && magnitude.count == bins * frames && phase.count == bins * frames
                     && audio.count == hop * (frames - 1))
        let blocks = frames + 3 + 8
        var planes = [Float](repeating: 0, count: hop * blocks)
        planes.withUnsafeMutableBufferPointer { planes in
            let plane = UnsafeMutableRawPointer(planes.baseAddress!)
            let magnitudes = UnsafeRawPointer(magnitude.baseAddress!)
            let phases = UnsafeRawPointer(phase.baseAddress!)
            // The window with irfft's 1/16 folded in.
            let w = window.map { $0 / Float(size) }
            let limit = SIMD8<Float>(repeating: magnitudeLimit)
            var frame = 0
            while frame < frames {
                let lanes = min(8, frames - frame)
                func polar(_ bin: Int) -> (real: SIMD8<Float>, imag: SIMD8<Float>) {
                    var m = SIMD8<Float>(), p = SIMD8<Float>()
                    if lanes == 8 {
                        m = magnitudes.loadUnaligned(fromByteOffset: 4 * (bin * frames + frame), as: SIMD8<Float>.self)
                        p = phases.loadUnaligned(fromByteOffset: 4 * (bin * frames + frame), as: SIMD8<Float>.self)
                    } else {
                        for lane in 0..<lanes {
                            m[lane] = magnitude[bin * frames + frame + lane]
                            p[lane] = phase[bin * frames + frame + lane]
                        }
                    }
                    m.replace(with: limit, where: m .> limit)
                    let (sine, cosine) = p.sineAndCosine()
                    return (m * cosine, m * sine)
                }
                let r0 = polar(0).real, r8 = polar(8).real
                let (r1, i1) = polar(1), (r2, i2) = polar(2), (r3, i3) = polar(3), (r4, i4) = polar(4)
                let (r5, i5) = polar(5), (r6, i6) = polar(6), (r7, i7) = polar(7)
                // Bins k and 8 - k folded: cos((8 - k) n pi / 8) = (-1)^n cos(k n pi / 8), and
                // sin((8 - k) n pi / 8) = -(-1)^n sin(k n pi / 8).
                let rs1 = r1 + r7, rs2 = r2 + r6, rs3 = r3 + r5
                let rd1 = r1 - r7, rd2 = r2 - r6, rd3 = r3 - r5
                let is1 = i1 + i7, is2 = i2 + i6, is3 = i3 + i5
                let id1 = i1 - i7, id2 = i2 - i6, id3 = i3 - i5
                let (k1, k2, k3) = (Constants.c1, Constants.c2, Constants.c3)
                let even = r0 + r8, odd = r0 - r8
                // x_n = P_n - Q_n and x_(16-n) = P_n + Q_n, with P the cosine part and Q the sine part (times 2).
                let p0 = even + 2 * (rs1 + rs2 + rs3 + r4)
                let p8 = even + 2 * (-rs1 + rs2 - rs3 + r4)
                let p2 = even + 2 * ((rs1 - rs3) * k2 - r4)
                let q2 = 2 * ((id1 + id3) * k2 + id2)
                let p4 = even + 2 * (-rs2 + r4)
                let q4 = 2 * (id1 - id3)
                let p6 = even + 2 * (-(rs1 - rs3) * k2 - r4)
                let q6 = 2 * ((id1 + id3) * k2 - id2)
                let p1 = odd + 2 * (rd1 * k1 + rd2 * k2 + rd3 * k3)
                let q1 = 2 * (is1 * k3 + is2 * k2 + is3 * k1 + i4)
                let p3 = odd + 2 * (rd1 * k3 - rd2 * k2 - rd3 * k1)
                let q3 = 2 * (is1 * k1 + is2 * k2 - is3 * k3 - i4)
                let p5 = odd + 2 * (-rd1 * k3 - rd2 * k2 + rd3 * k1)
                let q5 = 2 * (is1 * k1 - is2 * k2 - is3 * k3 + i4)
                let p7 = odd + 2 * (-rd1 * k1 + rd2 * k2 - rd3 * k3)
                let q7 = 2 * (is1 * k3 - is2 * k2 + is3 * k1 - i4)

                // Overlap-add: sample n of the lanes' frames goes to plane n % 4 at block frame + n / 4.
                // Lanes past the last frame hold zeros and add nothing.
                func add(_ n: Int, _ value: SIMD8<Float>) {
                    let offset = 4 * ((n % hop) * blocks + frame + n / hop)
                    let sum = plane.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) + value * w[n]
                    plane.storeBytes(of: sum, toByteOffset: offset, as: SIMD8<Float>.self)
                }
                add(0, p0); add(8, p8)
                add(1, p1 - q1); add(15, p1 + q1); add(2, p2 - q2); add(14, p2 + q2)
                add(3, p3 - q3); add(13, p3 + q3); add(4, p4 - q4); add(12, p4 + q4)
                add(5, p5 - q5); add(11, p5 + q5); add(6, p6 - q6); add(10, p6 + q6)
                add(7, p7 - q7); add(9, p7 + q7)
                frame += 8
            }

            // The summed squared window: the same in every position reached by four frames (one value
            // per plane), counted frame by frame only near the two ends.
            func envelope(_ position: Int) -> Float {
                var sum: Float = 0
                var first = max(0, (position - size) / hop)
                while first * hop + size <= position { first += 1 }
                var f = first
                while f < frames, f * hop <= position {
                    sum += window[position - f * hop] * window[position - f * hop]
                    f += 1
                }
                return sum
            }
            func normalized(_ value: Float, _ sum: Float) -> Float {
                min(max(sum > 1e-11 ? value / sum : value, -audioLimit), audioLimit)
            }
            // Positions are audio index + 8; the first and last 8 audio samples lie near the ends.
            let edge = min(size / 2, audio.count)
            for index in Array(0..<edge) + Array(max(edge, audio.count - size / 2)..<audio.count) {
                let position = index + size / 2
                audio[index] = normalized(planes[(position % hop) * blocks + position / hop], envelope(position))
            }
            // Between them every position is reached by four frames: one sum per plane. Four samples
            // (one per plane) at a time, divided and clipped on vector lanes.
            var interior = SIMD4<Float>()
            for r in 0..<hop {
                for q in 0..<(size / hop) { interior[r] += window[r + hop * q] * window[r + hop * q] }
            }
            let clip = SIMD4<Float>(repeating: audioLimit)
            let out = UnsafeMutableRawPointer(audio.baseAddress!)
            var index = edge
            while index + hop <= audio.count - size / 2 {
                let block = (index + size / 2) / hop
                var value = SIMD4(planes[block], planes[blocks + block], planes[2 * blocks + block], planes[3 * blocks + block])
                value /= interior
                value.replace(with: clip, where: value .> clip)
                value.replace(with: -clip, where: value .< -clip)
                out.storeBytes(of: value, toByteOffset: 4 * index, as: SIMD4<Float>.self)
                index += hop
            }
            while index < audio.count - size / 2 {
                let position = index + size / 2
                audio[index] = normalized(planes[(position % hop) * blocks + position / hop], interior[position % hop])
                index += 1
            }
        }
    }

    /// cos(k pi / 8), k = 1, 2, 3.
    private enum Constants {
        static let c1 = Float(cos(Double.pi / 8))
        static let c2 = Float(cos(Double.pi / 4))
        static let c3 = Float(cos(3 * Double.pi / 8))
    }
}

extension SIMD8 where Scalar == Float {
    /// sin and cos of each lane (any finite value; accurate to a few float32 units for |x| up to about 1e4).
    ///
    /// Cephes `sinf`/`cosf`: x reduced by multiples of pi/2 (pi/2 split in three parts so the product
    /// is exact), minimax polynomials on [-pi/4, pi/4], and the quadrant choosing which is which and
    /// the signs. The libm pair per bin cost more than the vocoder's own Run on small models.
    @inline(__always)
    func sineAndCosine() -> (sine: SIMD8<Float>, cosine: SIMD8<Float>) {
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let shifted = self * 0.636_619_772_4 + magic      // x / (pi / 2), rounded in the low mantissa bits
        let q = shifted - magic
        let quadrant = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let r = self - q * 1.570_312_5 - q * 4.837_512_969_970_703_1e-4 - q * 7.549_789_948_768_648_2e-8
        let z = r * r
        var s = SIMD8<Float>(repeating: -1.951_529_589_1e-4)
        s = s * z + 8.332_160_873_6e-3
        s = s * z - 1.666_665_461_1e-1
        let sine = s * z * r + r
        var c = SIMD8<Float>(repeating: 2.443_315_711_8e-5)
        c = c * z - 1.388_731_625_5e-3
        c = c * z + 4.166_664_568_3e-2
        let cosine = c * z * z - 0.5 * z + 1
        // Quadrant 1: (cos, -sin); 2: (-sin, -cos); 3: (-cos, sin). Chosen with bit operations, which
        // stay in vector registers (integer lane comparisons do not).
        let swap = SIMD8<UInt32>(repeating: 0) &- (unsafeBitCast(quadrant, to: SIMD8<UInt32>.self) & 1)
        let sineBits = unsafeBitCast(sine, to: SIMD8<UInt32>.self)
        let cosineBits = unsafeBitCast(cosine, to: SIMD8<UInt32>.self)
        let firstBits = (cosineBits & swap) | (sineBits & ~swap)
        let secondBits = (sineBits & swap) | (cosineBits & ~swap)
        let sineSign = (unsafeBitCast(quadrant, to: SIMD8<UInt32>.self) & 2) &<< 30
        let cosineSign = (unsafeBitCast(quadrant &+ 1, to: SIMD8<UInt32>.self) & 2) &<< 30
        let outSine = unsafeBitCast(firstBits ^ sineSign, to: SIMD8<Float>.self)
        let outCosine = unsafeBitCast(secondBits ^ cosineSign, to: SIMD8<Float>.self)
        return (outSine, outCosine)
    }
}
