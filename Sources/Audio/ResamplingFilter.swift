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

    /// Passband edge and stopband start as fractions of the lower Nyquist frequency, and the stopband
    /// attenuation in dB. The stopband starts at Nyquist, so nothing above it folds back into the output.
    static let passbandEnd = 0.915
    static let stopbandStart = 1.0
    static let attenuation = 130.0

    init(inputRate: Int, outputRate: Int) {
        let divisor = Self.gcd(inputRate, outputRate)
        up = outputRate / divisor
        down = inputRate / divisor
        // Everything is measured in input samples; for downsampling the filter is stretched by down/up.
        let scale = min(1, Double(up) / Double(down))
        let cutoff = 0.5 * scale * (Self.passbandEnd + Self.stopbandStart) / 2  // cycles per input sample
        let transition = 0.5 * scale * (Self.stopbandStart - Self.passbandEnd)
        let length = (Self.attenuation - 7.95) / (14.36 * transition)
        let half = max(2, Int((length / 2).rounded(.up)))
        taps = 2 * half
        let beta = 0.1102 * (Self.attenuation - 8.7)
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
