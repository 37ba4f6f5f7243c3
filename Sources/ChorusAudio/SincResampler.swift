import Foundation

/// torchaudio's resampler (`torchaudio.functional.resample` with `resampling_method="sinc_interp_hann"`,
/// the method of `torchaudio.transforms.Resample`), for model front ends whose features were computed
/// from audio resampled that way, so the features match upstream's in the top bins too.
///
/// The rates are reduced by their greatest common divisor to `L` in and `M` out. Output phase `j` of
/// every block of `M` outputs is the dot product of `K = 2 * width + L` padded input samples, starting at
/// `L` times the block's index, with kernel row `j`: a sinc cut at `rolloff` times the lower Nyquist
/// frequency, under a squared-cosine (Hann) window `lowpassFilterWidth` zero crossings wide, scaled by
/// the cutoff over `L`. Kernels are made in float64 and kept in float32, as torchaudio does for float32
/// audio; the input is padded with `width` zeros before and `width + L` after, and the output cut to
/// `ceil(count * M / L)` samples. Unlike `Resampler` it is not built for quality (its transition band is
/// wide and its stopband shallow): it exists to reproduce what upstream's models were fed.
public struct SincResampler: Sendable {
    /// The input and output rates in Hz.
    public let inputRate: Int, outputRate: Int
    /// The rates divided by their greatest common divisor.
    let reducedInput: Int, reducedOutput: Int
    /// Zeros before the input; the kernel spans `2 * width + reducedInput` samples.
    let width: Int
    /// `reducedOutput` rows of `2 * width + reducedInput` taps.
    let kernels: [Float]

    /// A resampler from `inputRate` to `outputRate` with torchaudio's defaults (6 zero crossings, rolloff 0.99).
    public init(inputRate: Int, outputRate: Int, lowpassFilterWidth: Int = 6, rolloff: Double = 0.99) throws {
        guard inputRate > 0 else { throw AudioFileError.invalidSampleRate(inputRate) }
        guard outputRate > 0 else { throw AudioFileError.invalidSampleRate(outputRate) }
        self.inputRate = inputRate
        self.outputRate = outputRate
        var (a, b) = (inputRate, outputRate)
        while b != 0 { (a, b) = (b, a % b) }
        reducedInput = inputRate / a
        reducedOutput = outputRate / a
        let base = Double(min(reducedInput, reducedOutput)) * rolloff
        let zeroCrossings = Double(lowpassFilterWidth)
        width = Int((zeroCrossings * Double(reducedInput) / base).rounded(.up))
        let taps = 2 * width + reducedInput
        var kernels = [Float](repeating: 0, count: reducedOutput * taps)
        for phase in 0..<reducedOutput {
            for tap in 0..<taps {
                // Time of this tap from the output sample, in input samples, then in cycles of the cutoff.
                let offset = Double(tap - width) / Double(reducedInput) - Double(phase) / Double(reducedOutput)
                let t = min(max(offset * base, -zeroCrossings), zeroCrossings)
                let window = pow(cos(t * .pi / zeroCrossings / 2), 2)
                let x = t * .pi
                let sinc = x == 0 ? 1 : sin(x) / x
                kernels[phase * taps + tap] = Float(sinc * window * base / Double(reducedInput))
            }
        }
        self.kernels = kernels
    }

    /// `samples` at the output rate: `ceil(count * outputRate / inputRate)` samples (all of them when the
    /// rates are equal, as torchaudio returns the input unchanged then).
    public func resample(_ samples: [Float]) -> [Float] {
        guard inputRate != outputRate else { return samples }
        let taps = 2 * width + reducedInput
        let count = samples.count
        let outputCount = (count * reducedOutput + reducedInput - 1) / reducedInput
        var padded = [Float](repeating: 0, count: width + count + width + reducedInput)
        padded.replaceSubrange(width..<(width + count), with: samples)
        var output = [Float](repeating: 0, count: outputCount)
        padded.withUnsafeBufferPointer { input in
            kernels.withUnsafeBufferPointer { kernels in
                for index in 0..<outputCount {
                    let (block, phase) = index.quotientAndRemainder(dividingBy: reducedOutput)
                    let start = block * reducedInput
                    let row = phase * taps
                    // Summed in float64: within float32 rounding of the exact sum, whatever order torch adds in.
                    var sum = 0.0
                    for tap in 0..<taps { sum += Double(input[start + tap] * kernels[row + tap]) }
                    output[index] = Float(sum)
                }
            }
        }
        return output
    }
}
