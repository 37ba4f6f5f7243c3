import CChorusONNX
import Foundation

/// One loaded model, ready to run. Running is thread-safe, as the runtime guarantees for sessions.
public final class InferenceSession: @unchecked Sendable {
    /// The model file this session was loaded from; every error names it.
    public let modelPath: String
    /// The file the graph was read from: `modelPath`, or its optimised copy in an `OptimizedModelCache`.
    public let file: String
    /// Inputs in the model's order.
    public let inputs: [ValueInfo]
    /// Outputs in the model's order.
    public let outputs: [ValueInfo]
    /// Execution providers in use, most preferred first; always ends with the CPU.
    public let providers: [String]
    /// Whether each run gives the arena memory it took back when it ends (`SessionOptions.releasesArenaAfterRuns`).
    public let releasesArenaAfterRuns: Bool

    let runtime: OnnxRuntime
    private let session: OpaquePointer
    // Names as C strings, made once, so `run` converts nothing per call.
    private let inputNames: [UnsafeMutablePointer<CChar>]
    private let outputNames: [UnsafeMutablePointer<CChar>]
    private let inputNamePointers: [UnsafePointer<CChar>]
    private let inputIndex: [String: Int]
    private let outputIndex: [String: Int]

    /// Loads the model at `modelPath`.
    public convenience init(modelPath: String, options: SessionOptions = SessionOptions(), runtime: OnnxRuntime? = nil) throws {
        try self.init(file: modelPath, modelPath: modelPath, options: options, runtime: runtime)
    }

    /// Loads the graph in `file`, which is `modelPath` or a form of it (its optimised copy), naming
    /// `modelPath` in errors; `options.graphEdit` is made on the file's bytes first.
    init(file: String, modelPath: String, options: SessionOptions, runtime: OnnxRuntime?) throws {
        let runtime = try runtime ?? OnnxRuntime.shared()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: file)
        else { throw OnnxRuntimeError.modelNotFound(path: file) }
        self.runtime = runtime
        self.modelPath = modelPath
        self.file = file
        let api = runtime.api

        var sessionOptions: OpaquePointer?
        try runtime.check(api.CreateSessionOptions(&sessionOptions), model: modelPath)
        defer { api.ReleaseSessionOptions(sessionOptions) }
        let providers = try Self.configure(sessionOptions!, with: options, runtime: runtime, model: modelPath)

        var created: OpaquePointer?
        if let edit = options.graphEdit {
            // Read in a statement of its own, so the file's Data is gone before the edited copy is made.
            let model = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            let bytes = try edit.applied(to: model, modelPath: modelPath)
            try bytes.withUnsafeBytes { model in
                try runtime.check(api.CreateSessionFromArray(runtime.environment, model.baseAddress!, model.count,
                                                             sessionOptions!, &created), model: modelPath)
            }
        } else {
            try runtime.check(api.CreateSession(runtime.environment, file, sessionOptions!, &created), model: modelPath)
        }
        session = created!
        self.providers = providers
        releasesArenaAfterRuns = options.releasesArenaAfterRuns

        do {
            let inputs = try Self.describe(session, runtime: runtime, model: modelPath, count: api.SessionGetInputCount,
                                           name: api.SessionGetInputName, typeInfo: api.SessionGetInputTypeInfo)
            let outputs = try Self.describe(session, runtime: runtime, model: modelPath, count: api.SessionGetOutputCount,
                                            name: api.SessionGetOutputName, typeInfo: api.SessionGetOutputTypeInfo)
            self.inputs = inputs
            self.outputs = outputs
        } catch {
            api.ReleaseSession(session)
            throw error
        }
        inputNames = inputs.map { strdup($0.name)! }
        outputNames = outputs.map { strdup($0.name)! }
        inputNamePointers = inputNames.map { UnsafePointer($0) }
        inputIndex = Dictionary(uniqueKeysWithValues: inputs.enumerated().map { ($1.name, $0) })
        outputIndex = Dictionary(uniqueKeysWithValues: outputs.enumerated().map { ($1.name, $0) })
    }

    deinit {
        runtime.api.ReleaseSession(session)
        inputNames.forEach { free($0) }
        outputNames.forEach { free($0) }
    }

    /// The declared input called `name`, if any.
    public func input(named name: String) -> ValueInfo? { inputIndex[name].map { inputs[$0] } }
    /// The declared output called `name`, if any.
    public func output(named name: String) -> ValueInfo? { outputIndex[name].map { outputs[$0] } }

    /// Runs the model on `feeds` (every input, by name) and returns the requested outputs (all when `nil`).
    ///
    /// Inputs are checked against the model's declared names, element types, ranks and fixed
    /// dimensions first, so a mistake is reported with the name at fault rather than as a runtime error.
    public func run(_ feeds: [String: Tensor], outputs requested: [String]? = nil) throws -> [String: Tensor] {
        try run(feeds, outputs: requested, options: nil)
    }

    /// Runs like `run(_:outputs:)` on the shared `InferenceExecutor`, so the calling task suspends
    /// instead of blocking one of Swift's shared threads, and stops early when the task is cancelled:
    /// the runtime ends after the operator it is in and this throws `CancellationError`, so a cancelled
    /// caller neither waits for a long run nor leaves one running behind it.
    public func run(_ feeds: [String: Tensor], outputs requested: [String]? = nil,
                    limit: RunLimit? = nil) async throws -> [String: Tensor] {
        try await InferenceExecutor.shared.run(limit: limit) {
            try self.run(feeds, outputs: requested, options: nil)
        }
    }

    private func run(_ feeds: [String: Tensor], outputs requested: [String]?, options: OpaquePointer?) throws -> [String: Tensor] {
        let names = Array(feeds.keys)
        let plan = try plan(inputs: names, outputs: requested ?? outputs.map(\.name))
        let results = try run(plan, inputs: names.map { feeds[$0]! }, outputs: [], options: options)
        var output: [String: Tensor] = [:]
        for (position, index) in plan.outputPositions.enumerated() { output[outputs[index].name] = results[position] }
        return output
    }

    /// Input and output names resolved to the model's positions once, so a run repeated in a loop
    /// (a decoder step) looks up no names; made by `plan(inputs:outputs:)` for this session only.
    public struct RunPlan: Sendable {
        let session: ObjectIdentifier
        let inputPositions: [Int]
        let outputPositions: [Int]
    }

    /// A plan that feeds `inputs` (every input of the model, in the order `run` will be given them) and
    /// fetches `outputs` (any of the model's outputs, in the order `run` returns them).
    public func plan(inputs feeds: [String], outputs requested: [String]) throws -> RunPlan {
        let inputPositions = try feeds.map { name in
            guard let index = inputIndex[name] else {
                throw OnnxRuntimeError.unknownInput(name: name, model: modelPath, expected: inputs.map(\.name))
            }
            return index
        }
        if let missing = inputs.indices.first(where: { !inputPositions.contains($0) }) {
            throw OnnxRuntimeError.missingInput(name: inputs[missing].name, model: modelPath)
        }
        let outputPositions = try requested.map { name in
            guard let index = outputIndex[name] else {
                throw OnnxRuntimeError.unknownOutput(name: name, model: modelPath, available: outputs.map(\.name))
            }
            return index
        }
        return RunPlan(session: ObjectIdentifier(self), inputPositions: inputPositions, outputPositions: outputPositions)
    }

    /// Runs `plan` with `inputs` in the plan's input order and returns its outputs in the plan's order.
    ///
    /// `outputs` is empty, or holds one entry per planned output: a tensor of the shape the model will
    /// produce, which the runtime writes in place and which is returned as it is (no allocation, no
    /// metadata read back), or `nil` for one the runtime allocates. Inputs and given outputs are checked
    /// against the model's declared element types, ranks and fixed dimensions.
    public func run(_ plan: RunPlan, inputs feeds: [Tensor], outputs given: [Tensor?]) throws -> [Tensor] {
        try run(plan, inputs: feeds, outputs: given, options: nil)
    }

    /// `run(_:inputs:outputs:)` with the call's run options (nil for the runtime's defaults).
    private func run(_ plan: RunPlan, inputs feeds: [Tensor], outputs given: [Tensor?], options: OpaquePointer?) throws -> [Tensor] {
        precondition(plan.session == ObjectIdentifier(self), "a RunPlan runs only on the session that made it")
        precondition(feeds.count == plan.inputPositions.count, "one tensor per planned input")
        precondition(given.isEmpty || given.count == plan.outputPositions.count, "no outputs or one per planned output")
        let outputCount = plan.outputPositions.count
        let inputCount = inputs.count
        // Inside an executor job, the job's run options carry its cancellation to the runtime.
        let job = options == nil ? JobControl.current : nil
        if job?.isCancelled == true { throw CancellationError() }
        let own = options == nil && job == nil && releasesArenaAfterRuns
            ? try RunTermination(runtime: runtime, model: modelPath, releasesArena: true) : nil
        let options = try options ?? own?.options
            ?? job?.termination(for: runtime, model: modelPath, releasesArena: releasesArenaAfterRuns).options
        return try withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: inputCount) { values in
            values.initialize(repeating: nil)
            for (position, tensor) in zip(plan.inputPositions, feeds) {
                try validate(tensor, against: inputs[position])
                values[position] = tensor.value
            }
            return try withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>.self, capacity: outputCount) { names in
                for (slot, index) in plan.outputPositions.enumerated() { names[slot] = UnsafePointer(outputNames[index]) }
                return try withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: outputCount) { results in
                    for slot in 0..<outputCount {
                        let tensor = given.isEmpty ? nil : given[slot]
                        if let tensor { try validate(tensor, against: outputs[plan.outputPositions[slot]]) }
                        results[slot] = tensor?.value
                    }
                    let clock = ContinuousClock()
                    let started = clock.now
                    let status = runtime.api.Run(session, options, inputNamePointers, values.baseAddress!, inputCount,
                                                 UnsafePointer(names.baseAddress!), outputCount, results.baseAddress!)
                    runtime.recordRun(clock.now - started)
                    // Feeds and given outputs must outlive Run: the runtime reads and writes their memory during the call.
                    withExtendedLifetime(feeds) {}
                    withExtendedLifetime(given) {}
                    withExtendedLifetime(own) {}
                    if status != nil, job?.isCancelled == true {
                        runtime.api.ReleaseStatus(status)
                        throw CancellationError()
                    }
                    try runtime.check(status, model: modelPath)
                    return try collect(results, plan: plan, given: given)
                }
            }
        }
    }

    /// The outputs of a finished run: the given tensors as they are, the runtime's new values wrapped
    /// (every new value is released if one cannot be wrapped).
    private func collect(_ results: UnsafeMutableBufferPointer<OpaquePointer?>, plan: RunPlan, given: [Tensor?]) throws -> [Tensor] {
        var collected: [Tensor] = []
        collected.reserveCapacity(results.count)
        var failure: Error?
        for slot in results.indices {
            if !given.isEmpty, let tensor = given[slot] {
                collected.append(tensor)
                continue
            }
            guard let value = results[slot] else { continue }
            if failure != nil {
                runtime.api.ReleaseValue(value)
                continue
            }
            do {
                collected.append(try Tensor(taking: value, runtime: runtime, name: outputs[plan.outputPositions[slot]].name))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return collected
    }

    private func validate(_ tensor: Tensor, against info: ValueInfo) throws {
        if let expected = info.elementType, expected != tensor.elementType {
            throw OnnxRuntimeError.inputTypeMismatch(
                name: info.name, model: modelPath, expected: expected, actual: tensor.elementType)
        }
        let shape = tensor.shape
        guard shape.count == info.shape.count,
              zip(info.shape, shape).allSatisfy({ $0.accepts($1) })
        else {
            throw OnnxRuntimeError.inputShapeMismatch(
                name: info.name, model: modelPath, expected: info.shape, actual: shape)
        }
    }

    private typealias CountFunction = @convention(c) (OpaquePointer, UnsafeMutablePointer<Int>) -> OpaquePointer?
    private typealias NameFunction = @convention(c) (
        OpaquePointer, Int, OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    ) -> OpaquePointer?
    private typealias TypeInfoFunction = @convention(c) (
        OpaquePointer, Int, UnsafeMutablePointer<OpaquePointer?>
    ) -> OpaquePointer?

    private static func describe(
        _ session: OpaquePointer, runtime: OnnxRuntime, model: String,
        count: CountFunction, name: NameFunction, typeInfo: TypeInfoFunction
    ) throws -> [ValueInfo] {
        let api = runtime.api
        var total = 0
        try runtime.check(count(session, &total), model: model)
        return try (0..<total).map { index in
            var rawName: UnsafeMutablePointer<CChar>?
            try runtime.check(name(session, index, runtime.allocator, &rawName), model: model)
            let valueName = String(cString: rawName!)
            _ = api.AllocatorFree(runtime.allocator, rawName)

            var info: OpaquePointer?
            try runtime.check(typeInfo(session, index, &info), model: model)
            defer { api.ReleaseTypeInfo(info) }
            var onnxType = ONNX_TYPE_UNKNOWN
            try runtime.check(api.GetOnnxTypeFromTypeInfo(info!, &onnxType), model: model)
            guard onnxType == ONNX_TYPE_TENSOR else {
                return ValueInfo(name: valueName, elementType: nil, shape: [])
            }
            var tensorInfo: OpaquePointer?
            try runtime.check(api.CastTypeInfoToTensorInfo(info!, &tensorInfo), model: model)
            // The cast info belongs to `info`; it is not released separately.
            let description = try TensorDescription(info: tensorInfo!, runtime: runtime)
            return ValueInfo(name: valueName, elementType: description.elementType, shape: description.dimensions)
        }
    }

    /// Applies `options` and returns the providers in use; an accelerator the library lacks is skipped, never fatal.
    private static func configure(
        _ handle: OpaquePointer, with options: SessionOptions, runtime: OnnxRuntime, model: String
    ) throws -> [String] {
        let api = runtime.api
        try options.validate()
        if let threads = try options.intraOpThreads() {
            try runtime.check(api.SetIntraOpNumThreads(handle, Int32(threads)), model: model)
        }
        if let threads = options.interOpThreads {
            try runtime.check(api.SetInterOpNumThreads(handle, Int32(threads)), model: model)
        }
        try runtime.check(api.SetSessionGraphOptimizationLevel(handle, options.optimizationLevel.onnx), model: model)
        if let path = options.optimizedModelPath {
            try runtime.check(api.SetOptimizedModelFilePath(handle, path), model: model)
            // Saving a graph optimised at the `all` level makes the runtime warn that it is laid out for
            // this CPU; `OptimizedModelCache` keys its entries by the CPU's features, so the warning is
            // not for the user, and only errors of this session are logged.
            if options.optimizationLevel == .all {
                try runtime.check(api.SetSessionLogSeverityLevel(handle, 3), model: model)
            }
        }
        if let spinning = try options.spinning() {
            try runtime.check(api.AddSessionConfigEntry(handle, "session.intra_op.allow_spinning", spinning ? "1" : "0"),
                              model: model)
            try runtime.check(api.AddSessionConfigEntry(handle, "session.inter_op.allow_spinning", spinning ? "1" : "0"),
                              model: model)
        }
        if options.usesMemoryArena {
            try runtime.check(api.EnableCpuMemArena(handle), model: model)
        } else {
            try runtime.check(api.DisableCpuMemArena(handle), model: model)
        }
        if options.usesMemoryPattern {
            try runtime.check(api.EnableMemPattern(handle), model: model)
        } else {
            try runtime.check(api.DisableMemPattern(handle), model: model)
        }
        var used: [String] = []
        for provider in options.preferredProviders where runtime.availableProviders.contains(provider.rawValue) {
            if (try? ExecutionProviders.append(provider, to: handle, runtime: runtime)) != nil {
                used.append(provider.rawValue)
            }
        }
        used.append("CPUExecutionProvider")
        return used
    }
}
