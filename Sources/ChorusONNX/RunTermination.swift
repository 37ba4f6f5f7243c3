import CChorusONNX
import Foundation

/// The run options of the runs of one executor job: the terminate flag another thread may raise while
/// the runtime is inside `Run`, and whether each run gives its arena memory back when it ends.
///
/// A class so that the cancellation handler and the run share it and it lives until both are done.
final class RunTermination: @unchecked Sendable {
    let options: OpaquePointer
    private let api: OrtApi
    private let lock = NSLock()
    private var requested = false

    init(runtime: OnnxRuntime, model: String, releasesArena: Bool = false) throws {
        api = runtime.api
        var created: OpaquePointer?
        try runtime.check(api.CreateRunOptions(&created), model: model)
        options = created!
        if releasesArena {
            // The runtime's key: shrink the CPU arena (device 0) at the end of each run.
            do {
                try runtime.check(api.AddRunConfigEntry(options, "memory.enable_memory_arena_shrinkage", "cpu:0"), model: model)
            } catch {
                api.ReleaseRunOptions(options)
                throw error
            }
        }
    }

    deinit { api.ReleaseRunOptions(options) }

    /// Asks the runtime to stop the run after the operator it is in; safe from any thread, at any time.
    func terminate() {
        lock.withLock { requested = true }
        if let status = api.RunOptionsSetTerminate(options) { api.ReleaseStatus(status) }
    }

    /// Whether `terminate()` was called.
    var wasRequested: Bool { lock.withLock { requested } }
}
