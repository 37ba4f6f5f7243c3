import CChorusONNX
import Foundation

/// The run options of one `InferenceSession.cancellableRun` call: the terminate flag another thread
/// may raise while the runtime is inside `Run`.
///
/// A class so that the cancellation handler and the run share it and it lives until both are done.
final class RunTermination: @unchecked Sendable {
    let options: OpaquePointer
    private let api: OrtApi
    private let lock = NSLock()
    private var requested = false

    init(runtime: OnnxRuntime, model: String) throws {
        api = runtime.api
        var created: OpaquePointer?
        try runtime.check(api.CreateRunOptions(&created), model: model)
        options = created!
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
