/// How a test runs a golden of sampled tokens, so the same golden is checked under each change a CPU or a
/// thread count could make: ONNX Runtime at 1 or 2 intra-op threads (its sums in another order), every logit
/// moved by a relative 1e-5 in one of two hashed `LogitPerturbation` patterns, or moved by 1e-5 against each
/// draw's nearest boundary (`LogitPerturbation.aimed`). A golden whose draws keep `leastMargin` gives its tokens in
/// every run; `measured(_:)` measures that margin on the logits Chorus computed and `requireMargins` checks it. Chatterbox's, NeuTTS's and
/// CosyVoice's golden tests take `GoldenRun.allCases` as an argument; it lives beside `LogitPerturbation`, which
/// every engine's tests import already, so no test product gains a dependency on the runtime.
public enum GoldenRun: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneThread, twoThreads, perturbedUp, perturbedDown, aimedAtBoundary

    /// The least margin (`DrawMargin`) every pinned draw of a golden keeps, and the size of the runs'
    /// perturbations: a change of every logit by 1e-5 of the step's largest |logit|. Each measured change it must
    /// stay above (docs/measured.md, "Golden margins"), as a share of a step's largest |logit|:
    /// - runtimes: upstream's PyTorch against ONNX Runtime 1.32 on the generated graphs, this repository's
    ///   machine (Xeon, AVX-512): Chatterbox 2.7e-6 (scripts/testdata/chatterbox/measure_bound.py), CosyVoice
    ///   7.7e-7 (cosyvoice/make_upstream.py), NeuTTS 3.7e-6 at 289 places of context (neutts/make_testdata.py;
    ///   9.3e-6 at 2048, whose case keeps three times that);
    /// - thread counts and kernels: ONNX Runtime at 1 against 2 intra-op threads 0, with its graph optimisations
    ///   off 7.5e-7 (Chatterbox, the same machine);
    /// - CPUs: float32 against float64 2.8e-6 (Chatterbox, the same machine); another instruction set's float32
    ///   lies about as close to float64, so two CPUs differ by about twice that at most.
    public static let leastMargin = 1e-5

    /// The session's intra-op threads.
    public var threads: Int { self == .oneThread || self == .aimedAtBoundary ? 1 : 2 }

    /// The perturbation the run's samplers apply (nil: none).
    public var perturbation: LogitPerturbation? {
        switch self {
        case .oneThread, .twoThreads: nil
        case .perturbedUp: LogitPerturbation(size: Float(Self.leastMargin), pattern: 1)
        case .perturbedDown: LogitPerturbation(size: Float(Self.leastMargin), pattern: 2)
        case .aimedAtBoundary: .aimed(size: Float(Self.leastMargin))
        }
    }

    public var description: String { rawValue }

    /// `body` with this run's perturbation in force for the samplers it makes.
    public func callAsFunction<T>(_ body: () throws -> T) rethrows -> T {
        try LogitPerturbation.$active.withValue(perturbation, operation: body)
    }

    /// `body` run as this run, with the margin of every draw its samplers make measured on the logits the model
    /// gave them (before the run's perturbation): `body`'s result and the margins, one per draw, in order. A test
    /// compares the result with its golden, then checks the margins with `requireMargins(_:atLeast:)`.
    public func measured<T>(_ body: () throws -> T) rethrows -> (result: T, margins: [DrawMargin]) {
        let log = DrawMarginLog()
        let result = try DrawMarginLog.$active.withValue(log) { try self(body) }
        return (result, log.margins)
    }

    /// Throws `ThinDraw` for the first of `margins` below `threshold`: a draw another CPU could make otherwise.
    public func requireMargins(_ margins: [DrawMargin], atLeast threshold: Double = leastMargin) throws {
        if let thin = margins.firstIndex(where: { $0.least < threshold }) {
            throw ThinDraw(draw: thin, margin: margins[thin], threshold: threshold, run: self)
        }
    }

    /// A pinned draw of a golden that keeps less than its threshold: another CPU could draw otherwise.
    public struct ThinDraw: Error, CustomStringConvertible {
        /// Which draw of the run (from 0).
        public let draw: Int
        public let margin: DrawMargin
        public let threshold: Double
        public let run: GoldenRun

        public var description: String {
            "Draw \(draw) of the \(run) run keeps a margin of \(margin) on Chorus's logits, below the golden's "
                + "\(threshold); make the golden again with a seed whose draws keep it (its generator's margin search)."
        }
    }
}
