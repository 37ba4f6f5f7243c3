import CChorusONNX

/// One dimension of a declared shape: a fixed size, or a named or anonymous free size.
public enum Dimension: Equatable, Sendable, CustomStringConvertible {
    case fixed(Int)
    case symbolic(String)
    case dynamic

    /// The size when fixed.
    public var size: Int? {
        if case .fixed(let size) = self { return size }
        return nil
    }

    public var description: String {
        switch self {
        case .fixed(let size): "\(size)"
        case .symbolic(let name): name
        case .dynamic: "?"
        }
    }

    /// Whether a concrete size fits this dimension.
    public func accepts(_ size: Int) -> Bool {
        if case .fixed(let fixed) = self { return fixed == size }
        return true
    }
}

/// A model input or output as the session declares it.
public struct ValueInfo: Equatable, Sendable, CustomStringConvertible {
    public var name: String
    /// The element type, or `nil` when the value is not a tensor.
    public var elementType: TensorElementType?
    public var shape: [Dimension]

    public var description: String {
        "\(name): \(elementType?.description ?? "non-tensor") [\(shape.map(\.description).joined(separator: ", "))]"
    }
}

/// Element type and dimensions read from an `OrtTensorTypeAndShapeInfo`.
struct TensorDescription {
    var elementType: TensorElementType?
    var dimensions: [Dimension]

    init(info: OpaquePointer, runtime: OnnxRuntime) throws {
        let api = runtime.api
        var type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED
        try runtime.check(api.GetTensorElementType(info, &type))
        elementType = TensorElementType(type)
        var rank = 0
        try runtime.check(api.GetDimensionsCount(info, &rank))
        var sizes = [Int64](repeating: 0, count: rank)
        var names = [UnsafePointer<CChar>?](repeating: nil, count: rank)
        if rank > 0 {
            try runtime.check(api.GetDimensions(info, &sizes, rank))
            try runtime.check(api.GetSymbolicDimensions(info, &names, rank))
        }
        dimensions = (0..<rank).map { index in
            if sizes[index] >= 0 { return .fixed(Int(sizes[index])) }
            if let name = names[index], name.pointee != 0 { return .symbolic(String(cString: name)) }
            return .dynamic
        }
    }
}
