import Foundation

/// A test's proof that a golden of sampled tokens does not hang on the last bits of the model's sums: every
/// logit changed by a relative `size` (1e-5 is about a hundred times float32's precision and a few times the
/// largest difference measured between PyTorch and ONNX Runtime at 1 and 2 threads on the generated models),
/// up or down by a pattern fixed by `pattern`. A golden whose draws keep the margins its generator recorded
/// draws the same tokens with it on; one whose draw sits on a boundary between tokens does not.
///
/// Off unless a test asks: `LogitPerturbation.$active.withValue(.init(size: 1e-5)) { ... }` for the samplers made
/// inside, or `CHORUS_TEST_PERTURB=1e-5` in the environment for every sampler of the process (but those made
/// under `LogitPerturbation.off`).
public struct LogitPerturbation: SamplingStep, Equatable {
    /// The relative change of each logit.
    public let size: Float
    /// Chooses which logits go up and which down.
    public let pattern: UInt64

    public init(size: Float, pattern: UInt64 = 1) {
        self.size = size
        self.pattern = pattern
    }

    /// The perturbation samplers made in this task add before their steps (nil: the environment's; `off`: none).
    @TaskLocal public static var active: LogitPerturbation? = nil

    /// No perturbation, whatever the environment says: for tests of a sampler's exact arithmetic, which a
    /// perturbation changes by design.
    public static let off = LogitPerturbation(size: 0)

    /// `CHORUS_TEST_PERTURB`: a relative size, such as 1e-5.
    public static let environmentVariable = "CHORUS_TEST_PERTURB"

    /// The perturbation in force: the task's, else the environment's.
    static var current: LogitPerturbation? {
        if let active { return active.size == 0 ? nil : active }
        guard let text = ProcessInfo.processInfo.environment[environmentVariable], let size = Float(text), size > 0 else {
            return nil
        }
        return LogitPerturbation(size: size)
    }

    /// Each logit times 1 +- size, the sign from a hash of its value (not its index), so logits that are equal
    /// (float16 ties) stay equal, and the same pattern applies at every step.
    public func apply(to state: inout SamplingState) {
        let logits = state.logits
        for index in logits.indices where logits[index].isFinite {
            var bits = UInt64(logits[index].bitPattern) &+ pattern &* 0x9E37_79B9_7F4A_7C15
            bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
            bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
            bits ^= bits >> 31
            logits[index] += logits[index] * (bits & 1 == 0 ? size : -size)
        }
        state.logitsChanged()
    }
}
