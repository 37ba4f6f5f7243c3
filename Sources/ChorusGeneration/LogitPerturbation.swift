import Foundation

/// A test's proof that a golden of sampled tokens does not hang on the last bits of the model's sums: every
/// logit changed by a relative `size` (1e-5 is about a hundred times float32's precision and a few times the
/// largest difference measured between PyTorch and ONNX Runtime at 1 and 2 threads on the generated models),
/// up or down by a pattern fixed by `pattern`. A golden whose draws keep the margins its generator recorded
/// draws the same tokens with it on; one whose draw sits on a boundary between tokens does not.
///
/// The aimed perturbation (`LogitPerturbation.aimed(size:)`) does not guess: at each step it first measures the
/// draw's margins (`DrawMargin`) on the logits as given, then moves the logits that shrink the least of them by
/// `size` times that margin's M (the largest |logit| it is measured in), up or down as closes that boundary (a
/// draw's cumulative probability towards its uniform, the two values of a gap towards each other, equal values
/// together): the worst change of that size. A draw whose least margin is below `size` changes; one whose margins
/// all exceed it cannot (to first order), whatever the hashed patterns happen to do.
///
/// Off unless a test asks: `LogitPerturbation.$active.withValue(.init(size: 1e-5)) { ... }` for the samplers made
/// inside, or `CHORUS_TEST_PERTURB=1e-5` (`aimed:1e-5` for the aimed one) in the environment for every sampler of
/// the process (but those made under `LogitPerturbation.off`).
public struct LogitPerturbation: SamplingStep, Equatable {
    /// The relative change of each logit (aimed: of the largest |logit| of the margin it closes).
    public let size: Float
    /// Chooses which logits go up and which down (hashed patterns).
    public let pattern: UInt64
    /// Whether the logits move against each step's least margin instead of by `pattern`.
    public let aimed: Bool

    public init(size: Float, pattern: UInt64 = 1) {
        self.size = size
        self.pattern = pattern
        aimed = false
    }

    private init(aimedAt size: Float) {
        self.size = size
        pattern = 0
        aimed = true
    }

    /// The perturbation aimed at each step's nearest boundary, every logit it moves moved by `size` times M.
    public static func aimed(size: Float) -> LogitPerturbation { LogitPerturbation(aimedAt: size) }

    /// The perturbation samplers made in this task add before their steps (nil: the environment's; `off`: none).
    @TaskLocal public static var active: LogitPerturbation? = nil

    /// No perturbation, whatever the environment says: for tests of a sampler's exact arithmetic, which a
    /// perturbation changes by design.
    public static let off = LogitPerturbation(size: 0)

    /// `CHORUS_TEST_PERTURB`: a relative size, such as 1e-5 (hashed, pattern 1), or `aimed:` and a size.
    public static let environmentVariable = "CHORUS_TEST_PERTURB"

    /// The perturbation in force: the task's, else the environment's.
    static var current: LogitPerturbation? {
        if let active { return active.size == 0 ? nil : active }
        return ProcessInfo.processInfo.environment[environmentVariable].flatMap(Self.init(environment:))
    }

    /// The perturbation `CHORUS_TEST_PERTURB`'s `text` names (nil: none, or text that is no positive size).
    init?(environment text: String) {
        let aimed = text.hasPrefix("aimed:")
        guard let size = Float(aimed ? String(text.dropFirst("aimed:".count)) : text), size > 0 else { return nil }
        self = aimed ? Self(aimedAt: size) : Self(size: size)
    }

    /// As a step (hashed patterns only; a `TokenSampler` applies the aimed one itself, after measuring).
    public func apply(to state: inout SamplingState) {
        perturb(state.logits)
        state.logitsChanged()
    }

    /// Each logit times 1 +- size, the sign from a hash of its value (not its index), so logits that are equal
    /// (float16 ties) stay equal, and the same pattern applies at every step.
    func perturb(_ logits: UnsafeMutableBufferPointer<Float>) {
        for index in logits.indices where logits[index].isFinite {
            var bits = UInt64(logits[index].bitPattern) &+ pattern &* 0x9E37_79B9_7F4A_7C15
            bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
            bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
            bits ^= bits >> 31
            logits[index] += logits[index] * (bits & 1 == 0 ? size : -size)
        }
    }
}
