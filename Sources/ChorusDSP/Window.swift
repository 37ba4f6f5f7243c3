import Foundation

/// Analysis windows, computed in double precision and rounded once.
public enum Window {
    /// The Hann window: `periodic` (length N of an N+1 symmetric window, `torch.hann_window` default,
    /// `scipy.signal.get_window('hann')`) or symmetric (`numpy.hanning`).
    public static func hann(_ length: Int, periodic: Bool) -> [Float] {
        cosineSum(length, periodic: periodic, a0: 0.5, a1: 0.5)
    }

    /// The Hamming window (0.54 - 0.46 cos), periodic or symmetric.
    public static func hamming(_ length: Int, periodic: Bool) -> [Float] {
        cosineSum(length, periodic: periodic, a0: 0.54, a1: 0.46)
    }

    /// Kaldi's "povey" window: the symmetric Hann window raised to the power 0.85.
    public static func povey(_ length: Int) -> [Float] {
        guard length > 1 else { return [Float](repeating: 1, count: length) }
        return (0..<length).map { n in
            Float(pow(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(length - 1)), 0.85))
        }
    }

    /// `window` zero-padded on both sides to `length`, centered the way `torch.stft` places a short window.
    public static func centered(_ window: [Float], in length: Int) -> [Float] {
        precondition(window.count <= length, "window longer than the frame")
        let left = (length - window.count) / 2
        var out = [Float](repeating: 0, count: length)
        out.replaceSubrange(left..<(left + window.count), with: window)
        return out
    }

    private static func cosineSum(_ length: Int, periodic: Bool, a0: Double, a1: Double) -> [Float] {
        guard length > 1 else { return [Float](repeating: 1, count: length) }
        let denominator = Double(periodic ? length : length - 1)
        return (0..<length).map { n in Float(a0 - a1 * cos(2 * Double.pi * Double(n) / denominator)) }
    }
}
