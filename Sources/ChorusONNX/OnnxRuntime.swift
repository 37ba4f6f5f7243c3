import CChorusONNX
import Foundation

/// The loaded ONNX Runtime library and its one process-wide environment.
///
/// Get it with `OnnxRuntime.shared()`; the first call loads the library (from `libraryPath`
/// when given, then `CHORUS_ORT_LIBRARY`, the project's install, the system loader) and
/// every later call returns the same instance.
public final class OnnxRuntime: @unchecked Sendable {
    /// The file the library was loaded from (or the name the system loader resolved).
    public let libraryPath: String
    /// The runtime's own version string, e.g. "1.32.0".
    public let version: String
    /// Execution providers compiled into this library, e.g. ["CPUExecutionProvider"].
    public let availableProviders: [String]

    let api: OrtApi
    let environment: OpaquePointer
    let cpuMemoryInfo: OpaquePointer
    let allocator: OpaquePointer

    private let statisticsLock = NSLock()
    private var runStatistics = RunStatistics()

    /// Calls to `Run` across every session of this process and the time spent inside them.
    public struct RunStatistics: Sendable, Equatable {
        public var runs = 0
        public var duration: Duration = .zero
    }

    /// What every session has spent inside the runtime's `Run` so far; callers compare it with their
    /// own wall time to see how much time their code adds around inference.
    public var statistics: RunStatistics {
        statisticsLock.withLock { runStatistics }
    }

    /// Starts the counts of `statistics` again from zero.
    public func resetStatistics() {
        statisticsLock.withLock { runStatistics = RunStatistics() }
    }

    func recordRun(_ duration: Duration) {
        statisticsLock.withLock {
            runStatistics.runs += 1
            runStatistics.duration += duration
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: OnnxRuntime?

    /// The process's runtime, loading it on first use.
    ///
    /// `libraryPath` only matters on the first call; the runtime cannot be swapped once loaded.
    public static func shared(libraryPath: String? = nil) throws -> OnnxRuntime {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let runtime = try OnnxRuntime(libraryPath: libraryPath)
        loaded = runtime
        return runtime
    }

    private init(libraryPath: String?) throws {
        let (path, base) = try RuntimeLibrary.open(explicitPath: libraryPath)
        let version = String(cString: base.pointee.GetVersionString())
        guard let apiPointer = base.pointee.GetApi(UInt32(CHORUS_ORT_API_VERSION)) else {
            throw OnnxRuntimeError.unsupportedVersion(
                library: path, version: version, requiredAPI: UInt32(CHORUS_ORT_API_VERSION))
        }
        let api = apiPointer.pointee
        self.api = api
        self.libraryPath = path
        self.version = version

        // Chorus processes everything locally, so the runtime's telemetry (on by default in the PyPI
        // builds, which write a device id, an event database and a `.ses` file under ~/.cache/Microsoft
        // and $TMPDIR) is off: the variable the runtime reads while creating its environment stops the
        // start-up event and every file (1.32 reads ORT_DISABLE_TELEMETRY, later releases
        // ORT_TELEMETRY_DISABLED; a value the user set is kept), and the API switches off the rest.
        setenv("ORT_DISABLE_TELEMETRY", "1", 0)
        setenv("ORT_TELEMETRY_DISABLED", "1", 0)
        var env: OpaquePointer?
        try Self.check(api, api.CreateEnv(ORT_LOGGING_LEVEL_WARNING, "chorus", &env), model: nil)
        environment = env!
        try Self.check(api, api.DisableTelemetryEvents(env!), model: nil)

        var info: OpaquePointer?
        try Self.check(api, api.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &info), model: nil)
        cpuMemoryInfo = info!

        var allocator: OpaquePointer?
        try Self.check(api, api.GetAllocatorWithDefaultOptions(&allocator), model: nil)
        self.allocator = allocator!

        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        try Self.check(api, api.GetAvailableProviders(&names, &count), model: nil)
        availableProviders = (0..<Int(count)).compactMap { names?[$0].map { String(cString: $0) } }
        _ = api.ReleaseAvailableProviders(names, count)
    }

    /// Turns a returned status into a Swift error naming the model, releasing the status.
    static func check(_ api: OrtApi, _ status: OpaquePointer?, model: String?) throws {
        guard let status else { return }
        defer { api.ReleaseStatus(status) }
        let code = api.GetErrorCode(status)
        let message = String(cString: api.GetErrorMessage(status))
        throw OnnxRuntimeError.runtime(
            code: Int(code.rawValue), name: Self.errorName(code), message: message, model: model)
    }

    func check(_ status: OpaquePointer?, model: String? = nil) throws {
        try Self.check(api, status, model: model)
    }

    private static func errorName(_ code: OrtErrorCode) -> String {
        switch code {
        case ORT_OK: "OK"
        case ORT_FAIL: "FAIL"
        case ORT_INVALID_ARGUMENT: "INVALID_ARGUMENT"
        case ORT_NO_SUCHFILE: "NO_SUCHFILE"
        case ORT_NO_MODEL: "NO_MODEL"
        case ORT_ENGINE_ERROR: "ENGINE_ERROR"
        case ORT_RUNTIME_EXCEPTION: "RUNTIME_EXCEPTION"
        case ORT_INVALID_PROTOBUF: "INVALID_PROTOBUF"
        case ORT_MODEL_LOADED: "MODEL_LOADED"
        case ORT_NOT_IMPLEMENTED: "NOT_IMPLEMENTED"
        case ORT_INVALID_GRAPH: "INVALID_GRAPH"
        case ORT_EP_FAIL: "EP_FAIL"
        default: "code \(code.rawValue)"
        }
    }
}
