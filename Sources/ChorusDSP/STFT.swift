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
        let bins = binCount
        var re = [Float](repeating: 0, count: bins)
        var im = [Float](repeating: 0, count: bins)
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                forEachFrameGroup(of: signal, in: range, preprocess: preprocess) { first, count, laneRe, laneIm in
                    for lane in 0..<count {
                        for bin in 0..<bins {
                            re[bin] = laneRe[bin][lane]
                            im[bin] = laneIm[bin][lane]
                        }
                        body(first + lane, UnsafePointer(re.baseAddress!), UnsafePointer(im.baseAddress!))
                    }
                }
            }
        }
    }

    /// Transforms the frames in `range` eight at a time, one frame per SIMD lane, and calls
    /// `body(firstFrame, frameCount, real, imag)` with `binCount` lanes of bins per group; lanes past
    /// `frameCount` hold nothing meaningful.
    func forEachFrameGroup(
        of signal: [Float], in range: Range<Int>,
        preprocess: ((UnsafeMutableBufferPointer<Float>) -> Void)? = nil,
        _ body: (Int, Int, UnsafePointer<SIMD8<Float>>, UnsafePointer<SIMD8<Float>>) -> Void
    ) {
        guard !range.isEmpty else { return }
        let length = window.count
        let fftSize = fftSize
        var frames = [Float](repeating: 0, count: 8 * fftSize)
        var lanes = [SIMD8<Float>](repeating: .zero, count: fftSize)
        var re = [SIMD8<Float>](repeating: .zero, count: binCount)
        var im = [SIMD8<Float>](repeating: .zero, count: binCount)
        signal.withUnsafeBufferPointer { input in
            window.withUnsafeBufferPointer { window in
                frames.withUnsafeMutableBufferPointer { frames in
                    lanes.withUnsafeMutableBufferPointer { lanes in
                        re.withUnsafeMutableBufferPointer { re in
                            im.withUnsafeMutableBufferPointer { im in
                                var workspace = fft.makeLanesWorkspace()
                                var first = range.lowerBound
                                while first < range.upperBound {
                                    let count = min(8, range.upperBound - first)
                                    for lane in 0..<count {
                                        let frame = frames.baseAddress! + lane * fftSize
                                        let start = (first + lane) * hopLength - padLeft
                                        if start >= 0 && start + length <= input.count {
                                            frame.update(from: input.baseAddress! + start, count: length)
                                        } else {
                                            for offset in 0..<length {
                                                let source = Self.sourceIndex(start + offset, count: input.count,
                                                                              mode: padMode)
                                                frame[offset] = source.map { input[$0] } ?? 0
                                            }
                                        }
                                        if let preprocess { preprocess(UnsafeMutableBufferPointer(start: frame, count: length)) }
                                        for offset in 0..<length { frame[offset] *= window[offset] }
                                        for offset in length..<fftSize { frame[offset] = 0 }
                                    }
                                    for lane in count..<8 {
                                        (frames.baseAddress! + lane * fftSize).update(repeating: 0, count: fftSize)
                                    }
                                    Self.transpose(frames.baseAddress!, into: lanes.baseAddress!, count: fftSize)
                                    fft.forward(lanes: UnsafePointer(lanes.baseAddress!), real: re.baseAddress!,
                                                imag: im.baseAddress!, workspace: &workspace)
                                    body(first, count, UnsafePointer(re.baseAddress!), UnsafePointer(im.baseAddress!))
                                    first += count
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Eight rows of `count` values into `count` lanes.
    @inline(__always)
    private static func transpose(_ rows: UnsafePointer<Float>, into lanes: UnsafeMutablePointer<SIMD8<Float>>, count: Int) {
        let (r0, r1, r2, r3) = (rows, rows + count, rows + 2 * count, rows + 3 * count)
        let (r4, r5, r6, r7) = (rows + 4 * count, rows + 5 * count, rows + 6 * count, rows + 7 * count)
        for index in 0..<count {
            lanes[index] = SIMD8(r0[index], r1[index], r2[index], r3[index], r4[index], r5[index], r6[index], r7[index])
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
        let groups = (frames + 7) / 8
        let blocks = preprocess == nil ? min(ProcessInfo.processInfo.activeProcessorCount, max(1, frames / 64)) : 1
        out.values.withUnsafeMutableBufferPointer { values in
            nonisolated(unsafe) let base = values.baseAddress!
            nonisolated(unsafe) let work = { (range: Range<Int>) in
                forEachFrameGroup(of: signal, in: range, preprocess: preprocess) { first, count, re, im in
                    for bin in 0..<bins {
                        let power = re[bin] * re[bin] + im[bin] * im[bin]
                        for lane in 0..<count { base[(first + lane) * bins + bin] = power[lane] }
                    }
                }
            }
            guard blocks > 1 else { return work(0..<frames) }
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                // Whole groups of 8 per block.
                work(min(frames, 8 * (block * groups / blocks))..<min(frames, 8 * ((block + 1) * groups / blocks)))
            }
        }
        return out
    }

    /// Mel filters applied to each frame's power spectrum (or, with `magnitudeEpsilon`, to
    /// sqrt(|X|^2 + epsilon)): the same values as `filters.apply(powerSpectrogram(signal))`, computed eight
    /// frames at a time without the full spectrogram. `frameLimit` keeps only that many first frames.
    func melSpectrogram(
        _ signal: [Float], filters: MelFilterbank, magnitudeEpsilon: Float? = nil, frameLimit: Int? = nil
    ) -> Matrix {
        precondition(filters.binCount == binCount, "filters have \(filters.binCount) bins, the STFT \(binCount)")
        let frames = min(frameCount(for: signal.count), frameLimit ?? .max)
        let mels = filters.melCount
        let bins = binCount
        var out = Matrix(rows: frames, columns: mels)
        let groups = (frames + 7) / 8
        let blocks = min(ProcessInfo.processInfo.activeProcessorCount, max(1, frames / 64))
        out.values.withUnsafeMutableBufferPointer { values in
            nonisolated(unsafe) let base = values.baseAddress!
            let work = { @Sendable (range: Range<Int>) in
                var spectrum = [SIMD8<Float>](repeating: .zero, count: bins)
                var mel = [SIMD8<Float>](repeating: .zero, count: mels)
                spectrum.withUnsafeMutableBufferPointer { spectrum in
                    mel.withUnsafeMutableBufferPointer { mel in
                        let spectrum = spectrum.baseAddress!, mel = mel.baseAddress!
                        forEachFrameGroup(of: signal, in: range) { first, count, re, im in
                            if let epsilon = magnitudeEpsilon {
                                for bin in 0..<bins {
                                    spectrum[bin] = (re[bin] * re[bin] + im[bin] * im[bin] + epsilon).squareRoot()
                                }
                            } else {
                                for bin in 0..<bins { spectrum[bin] = re[bin] * re[bin] + im[bin] * im[bin] }
                            }
                            filters.apply(lanes: spectrum, into: mel)
                            for lane in 0..<count {
                                let row = base + (first + lane) * mels
                                for index in 0..<mels { row[index] = mel[index][lane] }
                            }
                        }
                    }
                }
            }
            guard blocks > 1 else { return work(0..<frames) }
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                work(min(frames, 8 * (block * groups / blocks))..<min(frames, 8 * ((block + 1) * groups / blocks)))
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
