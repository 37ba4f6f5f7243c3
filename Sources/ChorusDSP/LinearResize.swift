/// Linear interpolation to a new length, as `torch.nn.functional.interpolate(mode="linear")` does.
public enum LinearResize {
    /// `values` stretched or squeezed to `length` samples. With `alignCorners` false (torch's default) sample
    /// `i` reads source position `(i + 0.5) * count / length - 0.5`, clamped at 0; with it true the end points
    /// map onto each other.
    public static func resize(_ values: [Float], to length: Int, alignCorners: Bool = false) -> [Float] {
        precondition(length >= 0, "negative length")
        guard let last = values.last else { return [Float](repeating: 0, count: length) }
        if values.count == 1 || length == 0 { return [Float](repeating: last, count: length) }
        let count = values.count
        return (0..<length).map { index in
            let position: Double
            if alignCorners {
                position = length > 1 ? Double(index) * Double(count - 1) / Double(length - 1) : 0
            } else {
                position = max(0, (Double(index) + 0.5) * Double(count) / Double(length) - 0.5)
            }
            let lower = min(Int(position), count - 1)
            let upper = min(lower + 1, count - 1)
            let weight = Float(position - Double(lower))
            return values[lower] + weight * (values[upper] - values[lower])
        }
    }

    /// Every column of a frames x features matrix resized to `frames` rows (a feature sequence in time).
    public static func resizeRows(_ matrix: Matrix, to frames: Int, alignCorners: Bool = false) -> Matrix {
        var out = Matrix(rows: frames, columns: matrix.columns)
        for column in 0..<matrix.columns {
            let series = (0..<matrix.rows).map { matrix[$0, column] }
            for (row, value) in resize(series, to: frames, alignCorners: alignCorners).enumerated() {
                out[row, column] = value
            }
        }
        return out
    }
}
