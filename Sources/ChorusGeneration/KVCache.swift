import Foundation
import ChorusONNX

/// The key/value cache of one utterance, fed from each run's outputs straight into the next run's
/// inputs with no copy: one stacked tensor (CosyVoice's `past_key_values`) or one per layer and kind
/// (`present.{i}.key/value` -> `past_key_values.{i}.key/value` in Hugging Face exports).
///
/// The first decode step shows the layout (element type, shape, and the one axis that grew by one); from
/// then on each tensor alternates between two buffers sized for the longest utterance allowed, and each
/// run writes the one-step-longer cache into the buffer the previous run did not write. The buffers go
/// back to the pool when the cache is released, so later utterances run in place from their prefill on.
public final class KVCache {
    /// The cache tensors as the last run returned them, in the model's order: feed these to the next run.
    public private(set) var tensors: [Tensor] = []
    private let pool: KVCachePool
    private let longest: Int
    private let tensorCount: Int
    private var buffers: [(TensorStorage, TensorStorage)] = []
    private var layouts: [KVCacheLayout] = []
    private var writesSecond = false

    /// A cache of `tensorCount` tensors for an utterance of at most `longest` positions (prompt included),
    /// with buffers from `pool`.
    public init(pool: KVCachePool, tensorCount: Int, longest: Int) throws {
        self.pool = pool
        self.longest = longest
        self.tensorCount = tensorCount
        if let known = pool.layouts, known.count == tensorCount { try allocate(known) }
    }

    deinit {
        pool.put(buffers.flatMap { [$0.0, $0.1] })
    }

    /// The output tensors the next run should write a cache of `length` positions into, one per cache
    /// tensor; nil (the runtime allocates) until the layout is known.
    public func targets(length: Int) throws -> [Tensor?] {
        guard !layouts.isEmpty else { return [Tensor?](repeating: nil, count: tensorCount) }
        defer { writesSecond.toggle() }
        return try zip(layouts, buffers).map { layout, pair in
            var shape = layout.shape
            shape[layout.axis] = length
            return try Tensor(over: writesSecond ? pair.1 : pair.0, shape: shape)
        }
    }

    /// Takes the cache tensors a run returned; after the first decode step (the second update) the
    /// layout is learnt from how they grew, and `model` names the file in the error when they did not grow by one.
    public func update(_ returned: [Tensor], model: String) throws {
        guard returned.count == tensorCount else {
            throw KVCacheError.changedTensorCount(model: model, before: tensorCount, after: returned.count)
        }
        if layouts.isEmpty, !tensors.isEmpty {
            let learned = try zip(tensors, returned).map { try KVCacheLayout(before: $0, after: $1, model: model) }
            pool.layouts = learned
            try allocate(learned)
        }
        tensors = returned
    }

    private func allocate(_ known: [KVCacheLayout]) throws {
        layouts = known
        buffers = try known.map { layout in
            let capacity = layout.elementsPerStep * longest
            return (try pool.take(layout.elementType, capacity: capacity), try pool.take(layout.elementType, capacity: capacity))
        }
    }
}

/// Cache buffers kept between utterances: their pages stay mapped, so the next utterance neither faults
/// them in again inside its runs nor unmaps them when it ends (resident as the longest utterance so far
/// needed). Concurrent utterances each take their own. One pool per model.
public final class KVCachePool: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [TensorStorage] = []
    private var learned: [KVCacheLayout]?
    private var lent = 0

    public init() {}

    /// Buffers taken by caches that have not been released yet (two per cache tensor while an utterance runs,
    /// none once every cache is gone): how a caller sees that a stopped, failed or cancelled utterance let its
    /// cache go.
    public var buffersInUse: Int { lock.withLock { lent } }

    /// The cache layout the first utterance showed, for later ones to write even the prefill in place.
    var layouts: [KVCacheLayout]? {
        get { lock.withLock { learned } }
        set { lock.withLock { learned = newValue } }
    }

    /// A buffer of at least `capacity` elements of `type`, kept or new.
    func take(_ type: TensorElementType, capacity: Int) throws -> TensorStorage {
        let reused: TensorStorage? = lock.withLock {
            lent += 1
            guard let index = kept.firstIndex(where: { $0.elementType == type && $0.capacity >= capacity }) else { return nil }
            return kept.remove(at: index)
        }
        do {
            return try reused ?? TensorStorage(elementType: type, capacity: capacity)
        } catch {
            lock.withLock { lent -= 1 }
            throw error
        }
    }

    /// Keeps `buffers` for the next utterance (the largest, two per cache tensor).
    func put(_ buffers: [TensorStorage]) {
        guard !buffers.isEmpty else { return }
        lock.withLock {
            lent -= buffers.count
            kept += buffers
            kept.sort { $0.capacity > $1.capacity }
            let keep = 2 * max(1, learned?.count ?? 1)
            if kept.count > keep { kept.removeLast(kept.count - keep) }
        }
    }
}

/// One cache tensor's element type and shape, and which axis grows by one each step: read from the first
/// decode step, so the export's layout is never assumed.
struct KVCacheLayout: Sendable {
    var elementType: TensorElementType
    var shape: [Int]
    var axis: Int

    init(before: Tensor, after: Tensor, model: String) throws {
        let grown = zip(before.shape, after.shape).enumerated().filter { $0.element.1 != $0.element.0 }
        guard before.shape.count == after.shape.count, grown.count == 1, let axis = grown.first?.offset,
              after.shape[axis] == before.shape[axis] + 1
        else {
            throw KVCacheError.notGrownByOne(model: model, before: before.shape, after: after.shape)
        }
        elementType = after.elementType
        shape = after.shape
        self.axis = axis
    }

    /// Elements per position of the growing axis.
    var elementsPerStep: Int { shape.enumerated().reduce(1) { $0 * ($1.offset == axis ? 1 : $1.element) } }
}

/// A decoder's cache outputs did not have the shape of a cache.
public enum KVCacheError: Error, Equatable, CustomStringConvertible {
    /// A decode step returned a cache that is not its input one position longer on one axis.
    case notGrownByOne(model: String, before: [Int], after: [Int])
    /// A run returned another number of cache tensors than the model has.
    case changedTensorCount(model: String, before: Int, after: Int)

    public var description: String {
        switch self {
        case .notGrownByOne(let model, let before, let after):
            return "\(model) returned a KV cache of shape \(after) for an input of shape \(before), not one position "
                + "longer on one axis; check that the model is a decoder step exported with its cache as input and output."
        case .changedTensorCount(let model, let before, let after):
            return "\(model) returned \(after) cache tensors where \(before) were expected; check that the step's past "
                + "and present cache names pair up."
        }
    }
}
