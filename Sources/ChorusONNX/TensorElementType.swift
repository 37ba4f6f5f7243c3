import CChorusONNX

/// The element types Chorus moves in and out of tensors, with the runtime's code for each.
public enum TensorElementType: Int32, Sendable, CustomStringConvertible, CaseIterable {
    case float32 = 1
    case uint8 = 2
    case int8 = 3
    case uint16 = 4
    case int16 = 5
    case int32 = 6
    case int64 = 7
    case string = 8
    case bool = 9
    case float16 = 10
    case float64 = 11
    case uint32 = 12
    case uint64 = 13
    case bfloat16 = 16

    /// Bytes per element; `nil` for strings, which have no fixed size.
    public var byteSize: Int? {
        switch self {
        case .uint8, .int8, .bool: 1
        case .uint16, .int16, .float16, .bfloat16: 2
        case .int32, .uint32, .float32: 4
        case .int64, .uint64, .float64: 8
        case .string: nil
        }
    }

    public var description: String {
        switch self {
        case .float32: "float32"
        case .uint8: "uint8"
        case .int8: "int8"
        case .uint16: "uint16"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .string: "string"
        case .bool: "bool"
        case .float16: "float16"
        case .float64: "float64"
        case .uint32: "uint32"
        case .uint64: "uint64"
        case .bfloat16: "bfloat16"
        }
    }

    init?(_ raw: ONNXTensorElementDataType) {
        self.init(rawValue: Int32(raw.rawValue))
    }

    var onnx: ONNXTensorElementDataType { ONNXTensorElementDataType(UInt32(rawValue)) }
}

/// A Swift type whose memory layout is exactly one tensor element of `elementType`.
///
/// Reading a tensor as `T` checks `T.tensorElementType` against the tensor's own type, so
/// float16 bytes can never be reinterpreted as float32 (or the reverse).
public protocol TensorElement: Sendable {
    static var tensorElementType: TensorElementType { get }
}

extension Float: TensorElement { public static var tensorElementType: TensorElementType { .float32 } }
extension Double: TensorElement { public static var tensorElementType: TensorElementType { .float64 } }
extension Int64: TensorElement { public static var tensorElementType: TensorElementType { .int64 } }
extension Int32: TensorElement { public static var tensorElementType: TensorElementType { .int32 } }
extension Int16: TensorElement { public static var tensorElementType: TensorElementType { .int16 } }
extension Int8: TensorElement { public static var tensorElementType: TensorElementType { .int8 } }
extension UInt8: TensorElement { public static var tensorElementType: TensorElementType { .uint8 } }
extension UInt16: TensorElement { public static var tensorElementType: TensorElementType { .uint16 } }
extension UInt32: TensorElement { public static var tensorElementType: TensorElementType { .uint32 } }
extension UInt64: TensorElement { public static var tensorElementType: TensorElementType { .uint64 } }
extension Bool: TensorElement { public static var tensorElementType: TensorElementType { .bool } }
#if !(os(macOS) && arch(x86_64))
extension Float16: TensorElement { public static var tensorElementType: TensorElementType { .float16 } }
#endif
