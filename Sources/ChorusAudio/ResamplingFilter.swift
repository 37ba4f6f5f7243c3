import Foundation

/// The polyphase bank of a Kaiser-windowed sinc low-pass for one rate pair.
///
/// Output sample `k` sits at input position `k * down / up`; writing that as `n + phase / up`, it is the dot
/// product of the `taps` inputs `n - taps/2 + 1 ... n + taps/2` with row `phase` of the bank. When `up` is too
/// large for a table (unrelated rates such as 44,101 -> 16,000) the bank holds `tableRows` rows and the
/// result is interpolated linearly between the two rows around the exact phase.
struct ResamplingFilter: Sendable {
    /// Rate ratio in lowest terms: `up` outputs for every `down` inputs.
    let up: Int
    let down: Int
    /// Coefficients per row, even; the filter reaches `taps / 2` inputs each side.
    let taps: Int
    /// Rows in `coefficients`: `up` when exact, `tableRows + 1` when interpolated.
    let rows: Int
    /// Whether rows index phases exactly or are interpolated.
    let exact: Bool
    /// `rows * taps` coefficients, each row in input order.
    let coefficients: [Float]

    /// Exact tables up to this many phases; beyond it, interpolation between this many rows.
    static let tableRows = 2048

    /// The filter for `inputRate` -> `outputRate` that keeps everything below `passband` Hz and removes
    /// everything from `stopband` Hz on by `attenuation` dB (stopbands above the lower Nyquist frequency
    /// let the transition band fold back, for a later stage to remove).
    init(inputRate: Int, outputRate: Int, passband: Double, stopband: Double, attenuation: Double) {
        let divisor = Self.gcd(inputRate, outputRate)
        up = outputRate / divisor
        down = inputRate / divisor
        // Everything is measured in input samples.
        let cutoff = (passband + stopband) / 2 / Double(inputRate)  // cycles per input sample
        let transition = (stopband - passband) / Double(inputRate)
        let length = (attenuation - 7.95) / (14.36 * transition)
        // Whole runs of 8 taps, for the vector dot product.
        let half = max(4, 4 * Int((length / 8).rounded(.up)))
        taps = 2 * half
        let beta = 0.1102 * (attenuation - 8.7)
        let windowNorm = Self.besselI0(beta)
        exact = up <= Self.tableRows
        rows = exact ? up : Self.tableRows + 1
        let phaseCount = exact ? up : Self.tableRows
        var table = [Float](repeating: 0, count: rows * taps)
        for row in 0..<rows {
            let fraction = Double(row) / Double(phaseCount)
            for tap in 0..<taps {
                // Distance from the output position back to this input, in input samples.
                let distance = fraction + Double(half - 1 - tap)
                let ratio = distance / Double(half)
                guard abs(ratio) < 1 else { continue }
                let window = Self.besselI0(beta * (1 - ratio * ratio).squareRoot()) / windowNorm
                let x = 2 * cutoff * distance
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                table[row * taps + tap] = Float(2 * cutoff * sinc * window)
            }
        }
        coefficients = table
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// The zeroth-order modified Bessel function of the first kind, by its power series.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let quarterSquare = x * x / 4
        var k = 1.0
        while term > sum * 1e-17 {
            term *= quarterSquare / (k * k)
            sum += term
            k += 1
        }
        return sum
    }
}
