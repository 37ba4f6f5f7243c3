import Foundation

/// How samples beyond the ends of a signal are made up when frames reach past them.
public enum PadMode: Sendable, Equatable {
    /// Zeros (`torch.stft(pad_mode="constant")`).
    case zeros
    /// Mirror without repeating the edge sample: `[c b | a b c | b a]` (`numpy.pad(mode="reflect")`).
    case reflect
    /// Mirror repeating the edge sample: `[b a | a b c | c b]` (`numpy.pad(mode="symmetric")`, Kaldi).
    case symmetric
}

/// The short-time Fourier transform and its inverse.
///
/// The signal is padded by `padLeft`/`padRight` samples in `padMode`; frames of `window.count` samples start
/// every `hopLength` samples; each is optionally preprocessed, multiplied by the window, zero-padded on the
/// right to `fftSize` and transformed. `centered` builds `torch.stft(center=True)` / `librosa.stft`.
public struct STFT: Sendable {
    /// Points per FFT; the spectrum has `fftSize / 2 + 1` bins.
    public let fftSize: Int
    /// Samples between frame starts.
    public let hopLength: Int
    /// The analysis window; its length is the frame length.
    public let window: [Float]
    /// Samples of padding before and after the signal.
    public let padLeft: Int
    public let padRight: Int
    /// How the padding is filled.
    public let padMode: PadMode

    private let fft: RealFFT

    /// Frames `window.count` long, transformed with `fftSize` points.
    public init(fftSize: Int, hopLength: Int, window: [Float], padLeft: Int = 0, padRight: Int = 0,
                padMode: PadMode = .reflect) {
        precondition(fftSize > 0 && hopLength > 0 && !window.isEmpty && window.count <= fftSize,
                     "STFT needs fftSize >= window length > 0 and a positive hop")
        self.fftSize = fftSize
        self.hopLength = hopLength
        self.window = window
        self.padLeft = padLeft
        self.padRight = padRight
        self.padMode = padMode
        fft = RealFFT(size: fftSize)
    }

    /// `torch.stft(center=True)`: pads `fftSize / 2` each side; a window shorter than `fftSize` is centered.
    public static func centered(fftSize: Int, hopLength: Int, window: [Float], padMode: PadMode = .reflect) -> STFT {
        STFT(fftSize: fftSize, hopLength: hopLength, window: Window.centered(window, in: fftSize),
             padLeft: fftSize / 2, padRight: fftSize / 2, padMode: padMode)
    }

    /// Bins per frame.
    public var binCount: Int { fftSize / 2 + 1 }

    /// Frames produced for a signal of `sampleCount` samples.
    public func frameCount(for sampleCount: Int) -> Int {
        let padded = sampleCount + padLeft + padRight
        return padded >= window.count ? 1 + (padded - window.count) / hopLength : 0
    }

    /// The sample index that padded position `index` (relative to the signal start) reads, or nil for a zero.
    @inline(__always)
    static func sourceIndex(_ index: Int, count: Int, mode: PadMode) -> Int? {
        if index >= 0 && index < count { return index }
        switch mode {
        case .zeros:
            return nil
        case .reflect:
            guard count > 1 else { return count == 1 ? 0 : nil }
            let period = 2 * (count - 1)
            var folded = index % period
            if folded < 0 { folded += period }
            return folded < count ? folded : period - folded
        case .symmetric:
            guard count > 0 else { return nil }
            let period = 2 * count
            var folded = index % period
            if folded < 0 { folded += period }
            return folded < count ? folded : period - 1 - folded
        }
    }

    /// Calls `body(frame, real, imag)` for every frame's spectrum; `preprocess` sees the raw frame first.
    public func forEachFrame(
        of signal: [Float],
        preprocess: ((UnsafeMutableBufferPointer<Float>) -> Void)? = nil,
        _ body: (Int, UnsafePointer<Float>, UnsafePointer<Float>) -> Void
    ) {
        forEachFrame(of: signal, in: 0..<frameCount(for: signal.count), preprocess: preprocess, body)
    }

    /// `forEachFrame` over the frames in `range` only.
    func forEachFrame(
        of signal: [Float], in range: Range<Int>,
        preprocess: ((UnsafeMutableBufferPointer<Float>) -> Void)? = nil,
        _ body: (Int, UnsafePointer<Float>, UnsafePointer<Float>) -> Void
    ) {
        guard !range.isEmpty else { return }
        let length = window.count
        var workspace = fft.makeWorkspace()
        var frame = [Float](repeating: 0, count: fftSize)
        var re = [Float](repeating: 0, count: binCount)
        var im = [Float](repeating: 0, count: binCount)
        signal.withUnsafeBufferPointer { input in
            window.withUnsafeBufferPointer { window in
                frame.withUnsafeMutableBufferPointer { frame in
                    re.withUnsafeMutableBufferPointer { re in
                        im.withUnsafeMutableBufferPointer { im in
                            for index in range {
                                let start = index * hopLength - padLeft
                                if start >= 0 && start + length <= input.count {
                                    frame.baseAddress!.update(from: input.baseAddress! + start, count: length)
                                } else {
                                    for offset in 0..<length {
                                        let source = Self.sourceIndex(start + offset, count: input.count, mode: padMode)
                                        frame[offset] = source.map { input[$0] } ?? 0
                                    }
                                }
                                if let preprocess { preprocess(UnsafeMutableBufferPointer(rebasing: frame[0..<length])) }
                                for offset in 0..<length { frame[offset] *= window[offset] }
                                for offset in length..<fftSize { frame[offset] = 0 }
                                fft.forward(UnsafePointer(frame.baseAddress!), real: re.baseAddress!,
                                            imag: im.baseAddress!, workspace: &workspace)
                                body(index, UnsafePointer(re.baseAddress!), UnsafePointer(im.baseAddress!))
                            }
                        }
                    }
                }
            }
        }
    }

    /// |X|^2 per frame and bin.
    public func powerSpectrogram(
        _ signal: [Float], preprocess: ((UnsafeMutableBufferPointer<Float>) -> Void)? = nil
    ) -> Matrix {
        let frames = frameCount(for: signal.count)
        var out = Matrix(rows: frames, columns: binCount)
        let bins = binCount
        // Frames are independent: blocks of them run on all cores, each writing its own rows.
        let blocks = preprocess == nil ? min(ProcessInfo.processInfo.activeProcessorCount, max(1, frames / 64)) : 1
        out.values.withUnsafeMutableBufferPointer { values in
            nonisolated(unsafe) let base = values.baseAddress!
            guard blocks > 1 else {
                forEachFrame(of: signal, in: 0..<frames, preprocess: preprocess) { frame, re, im in
                    let row = base + frame * bins
                    for bin in 0..<bins { row[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                }
                return
            }
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                let range = (block * frames / blocks)..<((block + 1) * frames / blocks)
                forEachFrame(of: signal, in: range) { frame, re, im in
                    let row = base + frame * bins
                    for bin in 0..<bins { row[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                }
            }
        }
        return out
    }

    /// sqrt(|X|^2 + epsilon) per frame and bin (Matcha and HiFi-GAN add 1e-9 inside the root).
    public func magnitudeSpectrogram(_ signal: [Float], epsilon: Float = 0) -> Matrix {
        var out = powerSpectrogram(signal)
        for index in out.values.indices { out.values[index] = (out.values[index] + epsilon).squareRoot() }
        return out
    }

    /// The complex spectrogram: (real, imag), frames x bins each.
    public func spectrogram(_ signal: [Float]) -> (real: Matrix, imag: Matrix) {
        let frames = frameCount(for: signal.count)
        var real = Matrix(rows: frames, columns: binCount)
        var imag = Matrix(rows: frames, columns: binCount)
        let bins = binCount
        real.values.withUnsafeMutableBufferPointer { realValues in
            imag.values.withUnsafeMutableBufferPointer { imagValues in
                forEachFrame(of: signal) { frame, re, im in
                    (realValues.baseAddress! + frame * bins).update(from: re, count: bins)
                    (imagValues.baseAddress! + frame * bins).update(from: im, count: bins)
                }
            }
        }
        return (real, imag)
    }

    /// The inverse STFT (`torch.istft`): each frame's inverse FFT is windowed and overlap-added, the sum is
    /// divided by the overlap-added squared window where that exceeds 1e-11, and the padding is cut off.
    /// `length` trims or zero-extends the result; by default it is the padded span less the padding.
    public func inverse(real: Matrix, imag: Matrix, length: Int? = nil) -> [Float] {
        precondition(real.rows == imag.rows && real.columns == binCount && imag.columns == binCount,
                     "iSTFT needs frames x \(binCount) bins")
        let frames = real.rows
        let frameLength = window.count
        let span = frames > 0 ? (frames - 1) * hopLength + frameLength : 0
        var sum = [Float](repeating: 0, count: span)
        var weight = [Float](repeating: 0, count: span)
        var workspace = fft.makeWorkspace()
        var frame = [Float](repeating: 0, count: fftSize)
        for index in 0..<frames {
            real.values.withUnsafeBufferPointer { re in
                imag.values.withUnsafeBufferPointer { im in
                    frame.withUnsafeMutableBufferPointer { out in
                        fft.inverse(real: re.baseAddress! + index * binCount, imag: im.baseAddress! + index * binCount,
                                    into: out.baseAddress!, workspace: &workspace)
                    }
                }
            }
            let start = index * hopLength
            for offset in 0..<frameLength {
                sum[start + offset] += frame[offset] * window[offset]
                weight[start + offset] += window[offset] * window[offset]
            }
        }
        for index in 0..<span where weight[index] > 1e-11 { sum[index] /= weight[index] }
        let natural = max(0, span - padLeft - padRight)
        let count = length ?? natural
        var out = [Float](repeating: 0, count: count)
        for index in 0..<min(count, max(0, span - padLeft)) { out[index] = sum[index + padLeft] }
        return out
    }
}
