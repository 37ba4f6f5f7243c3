/// Float tensors in the precision a graph declares: float32 as they are, float16 converted on the way in and
/// out. The one place Chorus spells `Float16`, behind the one availability check: Swift has no `Float16` on
/// Intel macOS, where a graph declaring float16 is refused with `OnnxRuntimeError.float16Unavailable`.
extension Tensor {
    /// `values` as a tensor of `type` (float32 or float16).
    public static func floats(_ values: [Float], shape: [Int], as type: TensorElementType) throws -> Tensor {
        switch type {
        case .float16:
            #if !(os(macOS) && arch(x86_64))
            return try Tensor(values.map { Float16($0) }, shape: shape)
            #else
            throw OnnxRuntimeError.float16Unavailable
            #endif
        case .float32:
            return try Tensor(values, shape: shape)
        default:
            throw OnnxRuntimeError.elementTypeMismatch(requested: .float32, actual: type)
        }
    }

    /// A tensor of `shape` and `type` whose values `fill` writes as Float: in place for float32, through one
    /// conversion for float16.
    public static func floats(shape: [Int], as type: TensorElementType,
                              fill: (UnsafeMutableBufferPointer<Float>) throws -> Void) throws -> Tensor {
        if type == .float32 { return try Tensor(shape: shape, of: Float.self, fill: fill) }
        var values = [Float](repeating: 0, count: shape.reduce(1, *))
        try values.withUnsafeMutableBufferPointer { try fill($0) }
        return try floats(values, shape: shape, as: type)
    }

    /// Lets `body` write the elements as Float: in place for float32, converted into float16 afterwards.
    public func writeFloats(_ body: (UnsafeMutableBufferPointer<Float>) throws -> Void) throws {
        switch elementType {
        case .float16:
            #if !(os(macOS) && arch(x86_64))
            var values = try floats()
            try values.withUnsafeMutableBufferPointer { try body($0) }
            try withUnsafeMutableBufferPointer(of: Float16.self) { target in
                for index in target.indices { target[index] = Float16(values[index]) }
            }
            #else
            throw OnnxRuntimeError.float16Unavailable
            #endif
        default:
            try withUnsafeMutableBufferPointer(of: Float.self, body)
        }
    }
}

extension TensorStorage {
    /// Storage of `count` elements of `type` (float32 or float16), every one `value`.
    public static func filled(with value: Float, count: Int, as type: TensorElementType) throws -> TensorStorage {
        let storage = try TensorStorage(elementType: type, capacity: count)
        switch type {
        case .float16:
            #if !(os(macOS) && arch(x86_64))
            try storage.withUnsafeMutableBufferPointer(of: Float16.self) { $0.update(repeating: Float16(value)) }
            #else
            throw OnnxRuntimeError.float16Unavailable
            #endif
        default:
            try storage.withUnsafeMutableBufferPointer(of: Float.self) { $0.update(repeating: value) }
        }
        return storage
    }
}
