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
        // The scale first and each position from it, in torch's order (`area_pixel_compute_scale`, then
        // `area_pixel_compute_source_index`), though in Double where torch computes in the tensor's type.
        let scale = alignCorners
            ? (length > 1 ? Double(count - 1) / Double(length - 1) : 0)
            : Double(count) / Double(length)
        return (0..<length).map { index in
            let position = alignCorners ? scale * Double(index) : max(0, (Double(index) + 0.5) * scale - 0.5)
            let lower = min(Int(position), count - 1)
            let upper = min(lower + 1, count - 1)
            let weight = Float(position - Double(lower))
            return values[lower] + (values[upper] - values[lower]) * weight
        }
    }
}
