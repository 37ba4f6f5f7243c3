import CChorusONNX
import Foundation

/// How a session is built: threads, graph optimisation, memory arena, execution providers.
public struct SessionOptions: Sendable, Equatable {
    /// How much the runtime rewrites the graph before running it.
    public enum OptimizationLevel: Sendable, Equatable {
        case disabled, basic, extended, all
        var onnx: GraphOptimizationLevel {
            switch self {
            case .disabled: ORT_DISABLE_ALL
            case .basic: ORT_ENABLE_BASIC
            case .extended: ORT_ENABLE_EXTENDED
            case .all: ORT_ENABLE_ALL
            }
        }
    }

    /// Hardware back ends a session may use before falling back to the CPU.
    public enum ExecutionProvider: String, Sendable, Equatable, CaseIterable {
        case coreML = "CoreMLExecutionProvider"
        case cuda = "CUDAExecutionProvider"
    }

    /// The most threads either pool may have. Speech models gain nothing past a few dozen, and the runtime
    /// creates every thread asked for (99,999 of them exhaust memory), so more is refused.
    public static let maximumThreads = 64

    /// Threads inside one operator; `nil` lets the runtime choose (one per core).
    public var intraOpThreads: Int?
    /// Threads across independent operators; `nil` lets the runtime choose.
    public var interOpThreads: Int?
    public var optimizationLevel: OptimizationLevel
    /// Whether idle intra-op threads spin waiting for work: lower latency, more CPU burnt. `nil` takes
    /// `spinningVariable` from the environment when it is set, else the runtime's default (they spin).
    public var allowSpinning: Bool?
    /// Whether the CPU allocator keeps freed memory in an arena for reuse.
    public var usesMemoryArena: Bool
    /// Whether the runtime plans one block for all of a run's intermediate tensors from the input shapes.
    public var usesMemoryPattern: Bool
    /// Preferred accelerators, in order. Each is used only when the loaded library has it; the CPU is always there.
    public var preferredProviders: [ExecutionProvider]
    /// Where the runtime writes the model as it optimised it while the session is created (ONNX format),
    /// for `OptimizedModelCache`; nil writes nothing.
    public var optimizedModelPath: String?
    /// Whether each run hands the memory it took from the arena back when it ends, keeping the arena's
    /// first block: for a session that runs now and then beside another of the same model (the one an
    /// engine keeps for a call that runs alone), so two arenas do not each hold a large call's memory.
    /// Measured on Kokoro (python onnxruntime 1.32, a 280-id call, 2 threads): 5.65 s with it, 5.53 s
    /// without; 281 MB held after the call instead of 520 MB.
    public var releasesArenaAfterRuns: Bool
    /// A change made to the graph's bytes before the runtime reads them (nil: the file as it is). An
    /// `OptimizedModelCache` keeps the edited graph as it optimised it, and loads that without editing again.
    public var graphEdit: ModelGraphEdit?

    public init(
        intraOpThreads: Int? = nil, interOpThreads: Int? = nil, optimizationLevel: OptimizationLevel = .all,
        allowSpinning: Bool? = nil, usesMemoryArena: Bool = true, usesMemoryPattern: Bool = true, preferredProviders: [ExecutionProvider] = [],
        optimizedModelPath: String? = nil, releasesArenaAfterRuns: Bool = false, graphEdit: ModelGraphEdit? = nil
    ) {
        self.intraOpThreads = intraOpThreads
        self.interOpThreads = interOpThreads
        self.optimizationLevel = optimizationLevel
        self.allowSpinning = allowSpinning
        self.usesMemoryArena = usesMemoryArena
        self.usesMemoryPattern = usesMemoryPattern
        self.preferredProviders = preferredProviders
        self.optimizedModelPath = optimizedModelPath
        self.releasesArenaAfterRuns = releasesArenaAfterRuns
        self.graphEdit = graphEdit
    }

    /// The environment variable that decides `allowSpinning` for sessions that leave it nil: `0` for a
    /// machine shared with other work, where threads spinning between operators take cores the other work
    /// needs (the test run, many sessions at once: see DEVELOPING.md), `1` for the runtime's default.
    public static let spinningVariable = "CHORUS_ORT_SPINNING"

    /// Whether idle threads spin: `allowSpinning`, else `spinningVariable` in `environment`, else nil.
    public func spinning(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Bool? {
        if let allowSpinning { return allowSpinning }
        guard let value = environment[Self.spinningVariable] else { return nil }
        switch value.trimmingCharacters(in: .whitespaces) {
        case "0": return false
        case "1": return true
        default: throw OnnxRuntimeError.invalidSpinningSetting(value: value)
        }
    }

    /// The environment variable that, when set, gives every session of the process that many intra-op
    /// threads, whatever its options ask for: a check that results do not hang on the thread count
    /// (sums split across threads are added in another order), as `make test` can be run at 1 and at 2.
    /// Not a tuning knob: an engine's own split of threads between calls alone and side by side is lost.
    public static let intraOpThreadsVariable = "CHORUS_ORT_INTRA_OP_THREADS"

    /// The intra-op threads a session is made with: `intraOpThreadsVariable` in `environment` when set,
    /// else `intraOpThreads` (nil: the runtime chooses).
    public func intraOpThreads(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int? {
        guard let value = environment[Self.intraOpThreadsVariable] else { return intraOpThreads }
        guard let count = Int(value.trimmingCharacters(in: .whitespaces)), (1...Self.maximumThreads).contains(count) else {
            throw OnnxRuntimeError.invalidThreadSetting(value: value, maximum: Self.maximumThreads)
        }
        return count
    }

    /// Throws `OnnxRuntimeError.invalidThreadCount` for a thread count below 1 or over `maximumThreads`.
    public func validate() throws {
        for (name, count) in [("intra-op", intraOpThreads), ("inter-op", interOpThreads)] {
            if let count, !(1...Self.maximumThreads).contains(count) {
                throw OnnxRuntimeError.invalidThreadCount(pool: name, requested: count, maximum: Self.maximumThreads)
            }
        }
    }
}
