/// The input of Wav2Vec2-BERT (facebook/w2v-bert-2.0), as transformers' `SeamlessM4TFeatureExtractor` makes it
/// for one clip: Kaldi log-mel filterbank of the samples scaled to the 16-bit range (`KaldiFbank`'s defaults are
/// the extractor's: 25 ms / 10 ms povey frames, DC removal, pre-emphasis 0.97, 80 Kaldi mel bins from 20 Hz to
/// Nyquist, `snip_edges`, ln floored at float epsilon), each bin normalised over time to zero mean and unit
/// variance (variance with one degree of freedom removed, plus 1e-7), frames padded with `paddingValue` to a
/// multiple of `stride`, and every `stride` consecutive frames laid side by side: frames / 2 x 160.
///
/// NeuCodec's encoder (`NeuCodec.encode_code`) calls it on the clip padded to a multiple of 320 samples, which
/// always gives an even frame count, so the padding never applies there.
public struct SeamlessM4TFeatures: FeatureExtractor {
    public let sampleRate = 16_000
    /// Mel bins per frame before stacking.
    public let melCount = 80
    /// Frames laid side by side in one row.
    public let stride = 2
    /// The value odd frame counts are padded with: 1 in w2v-bert-2.0's `preprocessor_config.json`.
    public var paddingValue: Float = 1

    public var featureCount: Int { melCount * stride }

    public init(paddingValue: Float = 1) {
        self.paddingValue = paddingValue
    }

    /// Rows for `sampleCount` samples.
    public func frameCount(for sampleCount: Int) -> Int {
        let frames = KaldiFbank().frameCount(for: sampleCount)
        return (frames + stride - 1) / stride
    }

    public func callAsFunction(_ samples: [Float]) -> Matrix {
        // Kaldi's convention: the extractor multiplies [-1, 1] audio by 2^15 before the filterbank.
        let fbank = KaldiFbank(melCount: melCount)(samples.map { $0 * 32_768 })
        let frames = fbank.rows
        var means = [Double](repeating: 0, count: melCount)
        var scales = [Double](repeating: 0, count: melCount)
        for column in 0..<melCount {
            var sum = 0.0
            for row in 0..<frames { sum += Double(fbank[row, column]) }
            let mean = sum / Double(frames)
            var squares = 0.0
            for row in 0..<frames {
                let deviation = Double(fbank[row, column]) - mean
                squares += deviation * deviation
            }
            // numpy's var(ddof=1): a single frame divides by zero and comes out NaN there too.
            let variance = squares / Double(frames - 1)
            means[column] = mean
            scales[column] = 1 / (variance + 1e-7).squareRoot()
        }
        let rows = (frames + stride - 1) / stride
        var out = Matrix(rows: rows, columns: featureCount, values: [Float](repeating: paddingValue, count: rows * featureCount))
        for frame in 0..<frames {
            let base = (frame / stride) * featureCount + (frame % stride) * melCount
            for column in 0..<melCount {
                out.values[base + column] = Float((Double(fbank[frame, column]) - means[column]) * scales[column])
            }
        }
        return out
    }
}
