/// Memory owned on the Swift side that tensors of different shapes can be made over without copying
/// (`Tensor(over:shape:)`): two buffers a decode loop's KV cache alternates between, written in place
/// by the runtime step after step, or a row of ones of which each step views one element more.
///
/// The memory is not cleared (a large cache costs only the pages it uses); it is freed when the storage
/// and every tensor over it are gone.
public final class TensorStorage: @unchecked Sendable {
    /// The element type every tensor over this storage has.
    public let elementType: TensorElementType
    /// Elements the storage holds.
    public let capacity: Int
    let runtime: OnnxRuntime
    let bytes: UnsafeMutableRawPointer
    let elementSize: Int

    /// Storage for `capacity` elements of `elementType` (not strings).
    public init(elementType: TensorElementType, capacity: Int, runtime: OnnxRuntime? = nil) throws {
        guard let size = elementType.byteSize, capacity >= 0 else {
            throw OnnxRuntimeError.shapeMismatch(shape: [capacity], elementCount: -1)
        }
        self.runtime = try runtime ?? OnnxRuntime.shared()
        self.elementType = elementType
        self.capacity = capacity
        elementSize = size
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(capacity * size, 1), alignment: 64)
    }

    deinit {
        bytes.deallocate()
    }

    /// Calls `body` with the elements to read or write; throws if `T` is not the storage's element type.
    public func withUnsafeMutableBufferPointer<T: TensorElement, R>(
        of type: T.Type, _ body: (UnsafeMutableBufferPointer<T>) throws -> R
    ) throws -> R {
        guard T.tensorElementType == elementType else {
            throw OnnxRuntimeError.elementTypeMismatch(requested: T.tensorElementType, actual: elementType)
        }
        return try body(UnsafeMutableBufferPointer(start: bytes.bindMemory(to: T.self, capacity: capacity), count: capacity))
    }
}
