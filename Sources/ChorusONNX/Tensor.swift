import CChorusONNX

/// A tensor owned by ONNX Runtime: made from Swift values, returned by `run`, or passed
/// straight from one call's outputs to the next call's inputs (a KV cache) with no copy.
///
/// The element type and shape are read from the runtime's value, never stored beside it,
/// and typed reads check the requested Swift type against that element type.
public final class Tensor: @unchecked Sendable {
    let runtime: OnnxRuntime
    let value: OpaquePointer
    /// The caller-owned memory a view was made over, kept alive as long as the view.
    private let storage: TensorStorage?
    /// The element type the runtime holds.
    public let elementType: TensorElementType
    /// The dimensions the runtime holds.
    public let shape: [Int]

    /// Number of elements (the product of `shape`).
    public var elementCount: Int { shape.reduce(1, *) }

    /// Takes ownership of a value the runtime returned; reads its type and shape from the runtime.
    init(taking value: OpaquePointer, runtime: OnnxRuntime, name: String) throws {
        self.runtime = runtime
        self.value = value
        storage = nil
        let api = runtime.api
        do {
            var onnxType = ONNX_TYPE_UNKNOWN
            try runtime.check(api.GetValueType(value, &onnxType))
            guard onnxType == ONNX_TYPE_TENSOR else { throw OnnxRuntimeError.notATensor(name: name) }
            var info: OpaquePointer?
            try runtime.check(api.GetTensorTypeAndShape(value, &info))
            defer { api.ReleaseTensorTypeAndShapeInfo(info) }
            let description = try TensorDescription(info: info!, runtime: runtime)
            guard let type = description.elementType else { throw OnnxRuntimeError.notATensor(name: name) }
            elementType = type
            shape = description.dimensions.map { max($0.size ?? 0, 0) }
        } catch {
            api.ReleaseValue(value)
            throw error
        }
    }

    /// Makes a tensor of `shape` and lets `fill` write its elements in place, with no intermediate array.
    public init<T: TensorElement>(
        shape: [Int], of type: T.Type = T.self, runtime: OnnxRuntime? = nil,
        fill: (UnsafeMutableBufferPointer<T>) throws -> Void
    ) throws {
        let runtime = try runtime ?? OnnxRuntime.shared()
        self.runtime = runtime
        storage = nil
        guard shape.allSatisfy({ $0 >= 0 }) else {
            throw OnnxRuntimeError.shapeMismatch(shape: shape, elementCount: -1)
        }
        let dims = shape.map(Int64.init)
        var created: OpaquePointer?
        try dims.withUnsafeBufferPointer { dimsBuffer in
            try runtime.check(runtime.api.CreateTensorAsOrtValue(
                runtime.allocator, dimsBuffer.baseAddress, dims.count, T.tensorElementType.onnx, &created))
        }
        value = created!
        elementType = T.tensorElementType
        self.shape = shape
        let count = shape.reduce(1, *)
        do {
            var data: UnsafeMutableRawPointer?
            try runtime.check(runtime.api.GetTensorMutableData(value, &data))
            let typed = data?.bindMemory(to: T.self, capacity: count)
            try fill(UnsafeMutableBufferPointer(start: typed, count: count))
        } catch {
            runtime.api.ReleaseValue(value)
            throw error
        }
    }

    /// A tensor of `shape` over the first elements of `storage`, with no copy and no allocation of its own:
    /// what the runtime writes into it (as a run's given output) lands in `storage`, and the same memory can
    /// be viewed again with another shape (a KV cache one step longer). The view keeps `storage` alive.
    public init(over storage: TensorStorage, shape: [Int]) throws {
        let runtime = storage.runtime
        self.runtime = runtime
        self.storage = storage
        let count = shape.reduce(1, *)
        guard shape.allSatisfy({ $0 >= 0 }), count <= storage.capacity else {
            throw OnnxRuntimeError.shapeMismatch(shape: shape, elementCount: storage.capacity)
        }
        var created: OpaquePointer?
        try withUnsafeTemporaryAllocation(of: Int64.self, capacity: shape.count) { dims in
            for (index, size) in shape.enumerated() { dims[index] = Int64(size) }
            try runtime.check(runtime.api.CreateTensorWithDataAsOrtValue(
                runtime.cpuMemoryInfo, storage.bytes, count * storage.elementSize, dims.baseAddress, shape.count,
                storage.elementType.onnx, &created))
        }
        value = created!
        elementType = storage.elementType
        self.shape = shape
    }

    /// Makes a tensor holding `values` (one copy, into memory the runtime owns).
    public convenience init<T: TensorElement>(_ values: [T], shape: [Int], runtime: OnnxRuntime? = nil) throws {
        guard shape.allSatisfy({ $0 >= 0 }), shape.reduce(1, *) == values.count else {
            throw OnnxRuntimeError.shapeMismatch(shape: shape, elementCount: values.count)
        }
        try self.init(shape: shape, of: T.self, runtime: runtime) { destination in
            values.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress, !source.isEmpty else { return }
                destination.baseAddress!.update(from: base, count: source.count)
            }
        }
    }

    /// Makes a one-element tensor of shape `shape` (default rank 1) holding `scalar`.
    public convenience init<T: TensorElement>(scalar: T, shape: [Int] = [1], runtime: OnnxRuntime? = nil) throws {
        try self.init([scalar], shape: shape, runtime: runtime)
    }

    deinit {
        runtime.api.ReleaseValue(value)
    }

    /// Calls `body` with the elements in place; throws if `T` is not this tensor's element type.
    public func withUnsafeBufferPointer<T: TensorElement, R>(
        of type: T.Type, _ body: (UnsafeBufferPointer<T>) throws -> R
    ) throws -> R {
        try withUnsafeMutableBufferPointer(of: type) { try body(UnsafeBufferPointer($0)) }
    }

    /// Calls `body` with the elements to write in place (an input reused across runs); throws if `T` is
    /// not this tensor's element type. Writing while a run reads the tensor is the caller's race to avoid.
    public func withUnsafeMutableBufferPointer<T: TensorElement, R>(
        of type: T.Type, _ body: (UnsafeMutableBufferPointer<T>) throws -> R
    ) throws -> R {
        guard T.tensorElementType == elementType else {
            throw OnnxRuntimeError.elementTypeMismatch(requested: T.tensorElementType, actual: elementType)
        }
        var data: UnsafeMutableRawPointer?
        try runtime.check(runtime.api.GetTensorMutableData(value, &data))
        let count = elementCount
        let typed = count == 0 ? nil : data?.bindMemory(to: T.self, capacity: count)
        return try body(UnsafeMutableBufferPointer(start: typed, count: count))
    }

    /// Copies the elements out as an array of `T`; throws if `T` is not this tensor's element type.
    public func array<T: TensorElement>(of type: T.Type = T.self) throws -> [T] {
        try withUnsafeBufferPointer(of: T.self) { Array($0) }
    }

    /// The elements as Float, converting from float16, float64 or integer types; for reading model outputs whatever their precision.
    public func floats() throws -> [Float] {
        switch elementType {
        case .float32: return try array(of: Float.self)
        case .float64: return try array(of: Double.self).map { Float($0) }
        #if !(os(macOS) && arch(x86_64))
        case .float16: return try array(of: Float16.self).map { Float($0) }
        #endif
        case .int64: return try array(of: Int64.self).map { Float($0) }
        case .int32: return try array(of: Int32.self).map { Float($0) }
        case .int16: return try array(of: Int16.self).map { Float($0) }
        case .int8: return try array(of: Int8.self).map { Float($0) }
        case .uint8: return try array(of: UInt8.self).map { Float($0) }
        default:
            throw OnnxRuntimeError.elementTypeMismatch(requested: .float32, actual: elementType)
        }
    }
}
