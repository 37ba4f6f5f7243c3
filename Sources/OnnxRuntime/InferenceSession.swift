import COnnxRuntime
import Foundation

/// One loaded model, ready to run. Running is thread-safe, as the runtime guarantees for sessions.
public final class InferenceSession: @unchecked Sendable {
    /// The model file this session was loaded from; every error names it.
    public let modelPath: String
    /// Inputs in the model's order.
    public let inputs: [ValueInfo]
    /// Outputs in the model's order.
    public let outputs: [ValueInfo]
    /// Execution providers in use, most preferred first; always ends with the CPU.
    public let providers: [String]

    let runtime: OnnxRuntime
    private let session: OpaquePointer
    // Names as C strings, made once, so `run` converts nothing per call.
    private let inputNames: [UnsafeMutablePointer<CChar>]
    private let outputNames: [UnsafeMutablePointer<CChar>]
    private let inputIndex: [String: Int]
    private let outputIndex: [String: Int]

    /// Loads the model at `modelPath`.
    public init(modelPath: String, options: SessionOptions = SessionOptions(), runtime: OnnxRuntime? = nil) throws {
        let runtime = try runtime ?? OnnxRuntime.shared()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: modelPath, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: modelPath)
        else { throw OnnxRuntimeError.modelNotFound(path: modelPath) }
        self.runtime = runtime
        self.modelPath = modelPath
        let api = runtime.api

        var sessionOptions: OpaquePointer?
        try runtime.check(api.CreateSessionOptions(&sessionOptions), model: modelPath)
        defer { api.ReleaseSessionOptions(sessionOptions) }
        let providers = try Self.configure(sessionOptions!, with: options, runtime: runtime, model: modelPath)

        var created: OpaquePointer?
        try runtime.check(api.CreateSession(runtime.environment, modelPath, sessionOptions!, &created), model: modelPath)
        session = created!
        self.providers = providers

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
        var values = [OpaquePointer?](repeating: nil, count: inputs.count)
        for (name, tensor) in feeds {
            guard let index = inputIndex[name] else {
                throw OnnxRuntimeError.unknownInput(name: name, model: modelPath, expected: inputs.map(\.name))
            }
            try validate(tensor, against: inputs[index])
            values[index] = tensor.value
        }
        if let missing = values.firstIndex(where: { $0 == nil }) {
            throw OnnxRuntimeError.missingInput(name: inputs[missing].name, model: modelPath)
        }
        let wanted = try (requested ?? outputs.map(\.name)).map { name in
            guard let index = outputIndex[name] else {
                throw OnnxRuntimeError.unknownOutput(name: name, model: modelPath, available: outputs.map(\.name))
            }
            return index
        }

        var results = [OpaquePointer?](repeating: nil, count: wanted.count)
        let inputPointers = inputNames.map { UnsafePointer($0) }
        let outputPointers = wanted.map { UnsafePointer(outputNames[$0]) }
        let clock = ContinuousClock()
        let started = clock.now
        let status = values.withUnsafeBufferPointer { valueBuffer in
            runtime.api.Run(session, nil, inputPointers, valueBuffer.baseAddress!, inputs.count,
                            outputPointers, wanted.count, &results)
        }
        runtime.recordRun(clock.now - started)
        // Feeds must outlive Run: the runtime reads their memory during the call.
        withExtendedLifetime(feeds) {}
        try runtime.check(status, model: modelPath)

        var output: [String: Tensor] = [:]
        var failure: Error?
        for (position, index) in wanted.enumerated() {
            guard let value = results[position] else { continue }
            if failure != nil {
                runtime.api.ReleaseValue(value)
                continue
            }
            do {
                output[outputs[index].name] = try Tensor(taking: value, runtime: runtime, name: outputs[index].name)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return output
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
        if let threads = options.intraOpThreads {
            try runtime.check(api.SetIntraOpNumThreads(handle, Int32(threads)), model: model)
        }
        if let threads = options.interOpThreads {
            try runtime.check(api.SetInterOpNumThreads(handle, Int32(threads)), model: model)
        }
        try runtime.check(api.SetSessionGraphOptimizationLevel(handle, options.optimizationLevel.onnx), model: model)
        if let spinning = options.allowSpinning {
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
