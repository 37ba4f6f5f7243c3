/// Scaling vectors to unit Euclidean length (`torch.nn.functional.normalize(p=2)`), as speaker embeddings are.
public enum L2Normalization {
    /// `vector / max(||vector||, epsilon)`.
    public static func normalized(_ vector: [Float], epsilon: Float = 1e-12) -> [Float] {
        var sum: Double = 0
        for value in vector { sum += Double(value) * Double(value) }
        let norm = max(Float(sum.squareRoot()), epsilon)
        return vector.map { $0 / norm }
    }

    /// Each row of `matrix` normalised.
    public static func normalizedRows(_ matrix: Matrix, epsilon: Float = 1e-12) -> Matrix {
        var out = matrix
        for row in 0..<matrix.rows {
            let normalizedRow = normalized(matrix.row(row), epsilon: epsilon)
            out.values.replaceSubrange((row * matrix.columns)..<((row + 1) * matrix.columns), with: normalizedRow)
        }
        return out
    }
}
