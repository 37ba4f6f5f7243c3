/// Everything that can go wrong between Chorus and ONNX Runtime, phrased for the person who has to fix it.
public enum OnnxRuntimeError: Error, Equatable, CustomStringConvertible, Sendable {
    /// No place held a loadable runtime library; `tried` pairs each place with why it failed.
    case libraryNotFound(tried: [Attempt])
    /// The library loaded but is older than the API version Chorus needs.
    case unsupportedVersion(library: String, version: String, requiredAPI: UInt32)
    /// A model file does not exist or cannot be read.
    case modelNotFound(path: String)
    /// The runtime itself reported an error (its code, name and message), with the model it concerned.
    case runtime(code: Int, name: String, message: String, model: String?)
    /// A `run` call named an input the model does not have.
    case unknownInput(name: String, model: String, expected: [String])
    /// A `run` call left out an input the model needs.
    case missingInput(name: String, model: String)
    /// A `run` call asked for an output the model does not produce.
    case unknownOutput(name: String, model: String, available: [String])
    /// An input tensor's element type differs from what the model declares.
    case inputTypeMismatch(name: String, model: String, expected: TensorElementType, actual: TensorElementType)
    /// An input tensor's shape contradicts the model's declared rank or fixed dimensions.
    case inputShapeMismatch(name: String, model: String, expected: [Dimension], actual: [Int])
    /// A tensor was read as a Swift type other than its own element type.
    case elementTypeMismatch(requested: TensorElementType, actual: TensorElementType)
    /// The element count does not match the shape when making a tensor.
    case shapeMismatch(shape: [Int], elementCount: Int)
    /// A session was asked for fewer than one or more than `SessionOptions.maximumThreads` threads.
    case invalidThreadCount(pool: String, requested: Int, maximum: Int)
    /// `SessionOptions.spinningVariable` holds something other than 0 or 1.
    case invalidSpinningSetting(value: String)
    /// `CHORUS_ORT_INTRA_OP_THREADS` is not a whole number from 1 to the maximum.
    case invalidThreadSetting(value: String, maximum: Int)
    /// A value the runtime returned is not a tensor (a sequence or map), which Chorus does not read.
    case notATensor(name: String)
    /// A graph takes or gives float16 where Swift has no `Float16` (Intel macOS).
    case float16Unavailable
    /// A model could not be edited before loading (`ModelGraphEdit`): the value it caps, and why.
    case graphEdit(model: String, value: String, reason: String)

    /// One place the loader looked for the runtime library, and what went wrong there.
    public struct Attempt: Equatable, Sendable, CustomStringConvertible {
        public var source: String
        public var path: String
        public var reason: String
        public var description: String { "\(source): \(path) (\(reason))" }
    }

    public var description: String {
        switch self {
        case .libraryNotFound(let tried):
            let places = tried.map { "  - \($0)" }.joined(separator: "\n")
            return """
                ONNX Runtime library not found. Tried, in order:
                \(places)
                Install it with `scripts/setup.sh` (from the Chorus checkout), or point CHORUS_ORT_LIBRARY \
                at a libonnxruntime shared library (1.19 or newer).
                """
        case .unsupportedVersion(let library, let version, let api):
            return "ONNX Runtime \(version) at \(library) does not offer C API version \(api); install 1.19 or newer with `scripts/setup.sh`."
        case .modelNotFound(let path):
            return "Model file not found or unreadable: \(path). Check the path, or run `scripts/setup.sh` to install the default models."
        case .runtime(let code, let name, let message, let model):
            let subject = model.map { " for model \($0)" } ?? ""
            return "ONNX Runtime error \(code) (\(name))\(subject): \(message)"
        case .unknownInput(let name, let model, let expected):
            return "Model \(model) has no input named '\(name)'; its inputs are: \(expected.joined(separator: ", "))."
        case .missingInput(let name, let model):
            return "Model \(model) needs input '\(name)', which was not given."
        case .unknownOutput(let name, let model, let available):
            return "Model \(model) has no output named '\(name)'; its outputs are: \(available.joined(separator: ", "))."
        case .inputTypeMismatch(let name, let model, let expected, let actual):
            return "Input '\(name)' of model \(model) must be \(expected), but a \(actual) tensor was given."
        case .inputShapeMismatch(let name, let model, let expected, let actual):
            let want = expected.map(\.description).joined(separator: ", ")
            return "Input '\(name)' of model \(model) must have shape [\(want)], but [\(actual.map(String.init).joined(separator: ", "))] was given."
        case .elementTypeMismatch(let requested, let actual):
            return "Tensor holds \(actual) elements and cannot be read as \(requested)."
        case .shapeMismatch(let shape, let count):
            return "Shape \(shape) needs \(shape.reduce(1, *)) elements, but \(count) were given."
        case .invalidThreadCount(let pool, let requested, let maximum):
            return "\(requested) \(pool) threads is not a usable thread count; give 1 to \(maximum)."
        case .invalidSpinningSetting(let value):
            return "\(SessionOptions.spinningVariable) is '\(value)'; set it to 0 (idle runtime threads sleep) or 1 (they spin), or unset it."
        case .invalidThreadSetting(let value, let maximum):
            return "\(SessionOptions.intraOpThreadsVariable) is '\(value)'; set it to a whole number of threads from 1 to \(maximum), or unset it."
        case .notATensor(let name):
            return "Value '\(name)' is not a tensor; Chorus reads tensors only."
        case .float16Unavailable:
            return "The model uses float16 tensors, which Swift does not have on this processor (Intel macOS); use the model's float32 export."
        case .graphEdit(let model, let value, let reason):
            return "Model \(model) could not be edited to cap '\(value)': \(reason); use the model `scripts/setup.sh` installs."
        }
    }
}
