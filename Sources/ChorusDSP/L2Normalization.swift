/// Scaling vectors to unit Euclidean length (`torch.nn.functional.normalize(p=2)`), as speaker embeddings are.
public enum L2Normalization {
    /// `vector / max(||vector||, epsilon)`.
    public static func normalized(_ vector: [Float], epsilon: Float = 1e-12) -> [Float] {
        var sum: Double = 0
        for value in vector { sum += Double(value) * Double(value) }
        let norm = max(Float(sum.squareRoot()), epsilon)
        return vector.map { $0 / norm }
    }
}
