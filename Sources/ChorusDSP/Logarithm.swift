/// Logarithms of feature matrices, eight values at a time.
///
/// The libm calls cost more than the whole mel projection, and every extractor ends with a logarithm of
/// positive values clamped away from zero, so this is the Cephes `logf` algorithm on SIMD lanes: split off
/// the exponent, a degree-9 polynomial for the mantissa near 1. Its error is about one unit in the last place
/// for positive normal inputs (the only ones it is given).
extension SIMD8 where Scalar == Float {
    /// The natural logarithm of each lane; lanes must be positive normal numbers.
    func naturalLogarithm() -> SIMD8<Float> {
        let bits = unsafeBitCast(self, to: SIMD8<Int32>.self)
        var exponent = SIMD8<Float>((bits &>> 23) &- 127)
        // The mantissa in [1, 2), then folded to [sqrt(1/2), sqrt(2)).
        var mantissa = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD8<Float>.self)
        let high = mantissa .> 1.414_213_56
        mantissa.replace(with: mantissa * 0.5, where: high)
        exponent.replace(with: exponent + 1, where: high)
        let x = mantissa - 1
        let z = x * x
        var p: SIMD8<Float> = SIMD8(repeating: 7.037_683_629_2e-2)
        p = p * x - 1.151_461_031_0e-1
        p = p * x + 1.167_699_874_0e-1
        p = p * x - 1.242_014_084_6e-1
        p = p * x + 1.424_932_278_7e-1
        p = p * x - 1.666_805_766_5e-1
        p = p * x + 2.000_071_476_5e-1
        p = p * x - 2.499_999_399_3e-1
        p = p * x + 3.333_333_117_4e-1
        var y = x * z * p
        y += exponent * -2.121_944_40e-4
        y -= 0.5 * z
        return x + y + exponent * 0.693_359_375
    }
}

extension Matrix {
    /// Replaces every value v by `scale * ln(max(v + offset, floor))`; `floor` must be positive.
    mutating func formLogarithm(offset: Float = 0, floor: Float, scale: Float = 1) {
        values.withUnsafeMutableBufferPointer { values in
            let count = values.count
            let base = UnsafeMutableRawPointer(values.baseAddress)
            var index = 0
            while index + 8 <= count {
                let v = base!.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self)
                let result = (v + offset).replacing(with: floor, where: v + offset .< floor).naturalLogarithm() * scale
                base!.storeBytes(of: result, toByteOffset: 4 * index, as: SIMD8<Float>.self)
                index += 8
            }
            if index < count {
                // The tail through the same lanes, so every value gets the same arithmetic.
                var v = SIMD8<Float>(repeating: 1)
                for lane in 0..<(count - index) { v[lane] = values[index + lane] }
                let result = (v + offset).replacing(with: floor, where: v + offset .< floor).naturalLogarithm() * scale
                for lane in 0..<(count - index) { values[index + lane] = result[lane] }
            }
        }
    }
}
