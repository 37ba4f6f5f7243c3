import Foundation

/// Seedable standard normal noise: a SplitMix64 stream through the Box-Muller transform.
///
/// The same seed gives the same sequence on every platform (the generator is integer arithmetic and the
/// transform uses only `log`, `sqrt`, `cos` and `sin` of doubles); it does not reproduce torch or numpy streams.
public struct GaussianNoise: Sendable {
    private var state: UInt64
    private var spare: Double?

    /// A stream starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func nextBits() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next standard normal value.
    public mutating func next() -> Float {
        if let spare {
            self.spare = nil
            return Float(spare)
        }
        // Uniform in (0, 1]: 53 random bits, never zero, so the log is finite.
        let u1 = (Double(nextBits() >> 11) + 1) / 9_007_199_254_740_992
        let u2 = Double(nextBits() >> 11) / 9_007_199_254_740_992
        let radius = (-2 * log(u1)).squareRoot()
        spare = radius * sin(2 * Double.pi * u2)
        return Float(radius * cos(2 * Double.pi * u2))
    }

    /// `count` values with the given mean and standard deviation.
    public mutating func samples(_ count: Int, mean: Float = 0, standardDeviation: Float = 1) -> [Float] {
        (0..<count).map { _ in mean + standardDeviation * next() }
    }
}
