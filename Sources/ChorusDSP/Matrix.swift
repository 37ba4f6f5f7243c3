/// A dense row-major matrix of Float: feature matrices are frames x features.
public struct Matrix: Sendable, Equatable {
    /// Rows (frames, for features).
    public let rows: Int
    /// Columns (bins or features per frame).
    public let columns: Int
    /// `rows * columns` values, row after row.
    public var values: [Float]

    /// A matrix of `rows` x `columns` holding `values`, or zeros when `values` is nil.
    public init(rows: Int, columns: Int, values: [Float]? = nil) {
        precondition(rows >= 0 && columns >= 0, "negative matrix shape")
        self.rows = rows
        self.columns = columns
        if let values {
            precondition(values.count == rows * columns, "\(values.count) values for \(rows)x\(columns)")
            self.values = values
        } else {
            self.values = [Float](repeating: 0, count: rows * columns)
        }
    }

    /// The value at `row`, `column`.
    public subscript(row: Int, column: Int) -> Float {
        get { values[row * columns + column] }
        set { values[row * columns + column] = newValue }
    }

    /// One row as an array.
    public func row(_ index: Int) -> [Float] { Array(values[(index * columns)..<((index + 1) * columns)]) }

    /// The transpose (features x frames, the layout Whisper and NeMo use).
    public func transposed() -> Matrix {
        var out = Matrix(rows: columns, columns: rows)
        for row in 0..<rows {
            for column in 0..<columns { out.values[column * rows + row] = values[row * columns + column] }
        }
        return out
    }
}
