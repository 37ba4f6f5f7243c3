import ChorusDSP

extension Matrix {
    /// The largest absolute difference to `other`, which must have the same shape (how parity with a golden is read).
    func maxAbsDifference(_ other: Matrix) -> Float {
        precondition(rows == other.rows && columns == other.columns, "shapes differ")
        var worst: Float = 0
        for index in values.indices { worst = Swift.max(worst, abs(values[index] - other.values[index])) }
        return worst
    }
}
