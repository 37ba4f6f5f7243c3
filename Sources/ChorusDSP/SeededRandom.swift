import Foundation

/// The one seeded source of randomness in Chorus (dither, flow noise, token sampling): SplitMix64,
/// chosen because its draws are easy to reproduce bit for bit in any language (the Python reference in
/// scripts/testdata/cosyvoice/reference.py implements the same operations). It does not reproduce
/// torch or numpy streams.
///
/// As a `RandomNumberGenerator` it gives the same raw draws to the standard library (`Int.random(in:using:)`).
///
/// - `uniform()`: the top 53 bits of the next output times 2⁻⁵³, in [0, 1).
/// - `categorical(count:weight:)`: r = uniform() x (sum of the weights, added in index order), then the
///   first index whose running sum exceeds r.
/// - `gaussian()`: Box-Muller on pairs (u1 = 1 - uniform(), u2 = uniform()), the cosine value first and
///   the sine value on the next call, so a stream read one value at a time or `count` at a time (an even
///   count from a fresh pair) gives the same values.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    private var spare: Double?

    /// A generator whose draws are fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 raw bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1).
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// An index drawn with probability proportional to `weights` (which need not sum to 1).
    public mutating func categorical(_ weights: [Double]) -> Int {
        categorical(count: weights.count) { weights[$0] }
    }

    /// An index below `count` drawn with probability proportional to `weight(index)`, with no array of weights.
    public mutating func categorical(count: Int, weight: (Int) -> Double) -> Int {
        var total = 0.0
        for index in 0..<count { total += weight(index) }
        let target = uniform() * total
        var running = 0.0
        for index in 0..<count {
            running += weight(index)
            if target < running { return index }
        }
        return count - 1
    }

    /// The next standard normal value.
    public mutating func gaussian() -> Float {
        if let spare {
            self.spare = nil
            return Float(spare)
        }
        // 1 - uniform() is in (0, 1], so the log is finite.
        let u1 = 1 - uniform()
        let u2 = uniform()
        let radius = (-2 * log(u1)).squareRoot()
        spare = radius * sin(2 * Double.pi * u2)
        return Float(radius * cos(2 * Double.pi * u2))
    }

    /// The next `count` standard normal values, times `standardDeviation`, plus `mean`.
    public mutating func gaussians(_ count: Int, mean: Float = 0, standardDeviation: Float = 1) -> [Float] {
        var values = [Float](repeating: 0, count: count)
        for index in values.indices { values[index] = mean + standardDeviation * gaussian() }
        return values
    }
}
