/// How a test runs a golden of sampled tokens, so the same golden is checked under each change a CPU or a
/// thread count could make: ONNX Runtime at 1 or 2 intra-op threads (its sums in another order), or every logit
/// moved by a relative 1e-5 in one of two `LogitPerturbation` patterns. A golden whose draws keep their recorded
/// margins gives its tokens in every run. Chatterbox's, NeuTTS's and CosyVoice's golden tests take
/// `GoldenRun.allCases` as an argument; it lives beside `LogitPerturbation`, which every engine's tests import
/// already, so no test product gains a dependency on the runtime.
public enum GoldenRun: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneThread, twoThreads, perturbedUp, perturbedDown

    /// The session's intra-op threads.
    public var threads: Int { self == .oneThread ? 1 : 2 }

    /// The perturbation the run's samplers apply (nil: none).
    public var perturbation: LogitPerturbation? {
        switch self {
        case .oneThread, .twoThreads: nil
        case .perturbedUp: LogitPerturbation(size: 1e-5, pattern: 1)
        case .perturbedDown: LogitPerturbation(size: 1e-5, pattern: 2)
        }
    }

    public var description: String { rawValue }

    /// `body` with this run's perturbation in force for the samplers it makes.
    public func callAsFunction<T>(_ body: () throws -> T) rethrows -> T {
        try LogitPerturbation.$active.withValue(perturbation, operation: body)
    }
}
