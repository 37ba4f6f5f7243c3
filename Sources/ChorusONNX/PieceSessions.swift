import Foundation

/// One model as an engine that runs pieces of text side by side uses it: a session for a call that runs
/// alone, with every thread the engine has, and one whose fewer threads the calls in flight share.
///
/// A session's thread count is fixed when it is made, and neither count suits both uses: with two
/// cores, two Kokoro calls of one thread each finished a pair of pieces in 9.84 s where one call with
/// two threads took 5.5 s per piece (python onnxruntime 1.32, 280 ids), but a call left alone on a
/// one-thread session leaves a core idle, which delayed the first audio of a stream and of a lone
/// sentence (StreamingBench, 2x1: Kokoro's first audio 1332 ms against 1043 ms with two threads).
///
/// The session for calls alone is made when the engine loads; the shared one, which a one-sentence
/// call never needs, when a request of several calls begins (`prepareShared`), on a thread of its own
/// while the request's first call runs. Making both at load took Piper's one sentence from 0.27 s to
/// 0.33 s (0.35 s to 0.55 s of CPU) and saved 0.1 s of a 20-sentence file (`chorus speak`, release
/// build, idle). A call asks to run alone and does so only when nothing else of the engine runs or
/// waits (it then takes every place of `limit`); else it takes one place and the shared session,
/// waiting for it while it is being made. (Lending the session for calls alone meanwhile was tried: a
/// Kokoro call lent it ran its whole piece on two threads beside a one-thread call, three threads on
/// two cores, and a 20-sentence file took 54.5 s of CPU instead of 51.) The alone session gives
/// its arena memory back after each run, so the two do not each keep a large call's memory. With as
/// many threads alone as shared, one session serves both.
public final class PieceSessions: @unchecked Sendable {
    /// The session of a call that runs alone.
    public let alone: InferenceSession
    /// The engine's calls at once: `inFlight` places, all of them taken by a call that runs alone.
    public let limit: RunLimit
    /// The shared session's making; nil when `alone` is shared too.
    private let maker: SessionMaker?

    /// Loads the model at `modelPath` for `inFlight` calls at once of `threadsPerRun` threads each, and
    /// a call alone of `threadsAlone` threads. `options` sets everything else; its own `intraOpThreads`
    /// or `allowSpinning`, when set, win over these. `allowsSpinning` is for the shared session (a call
    /// alone keeps the runtime's default). Graphs are optimised through `optimizedModels` (nil: in every
    /// process).
    public init(modelPath: String, options: SessionOptions, inFlight: Int, threadsPerRun: Int, threadsAlone: Int,
                allowsSpinning: Bool?, optimizedModels: OptimizedModelCache?) throws {
        limit = RunLimit(maximum: inFlight)
        var shared = options
        shared.intraOpThreads = options.intraOpThreads ?? threadsPerRun
        shared.allowSpinning = options.allowSpinning ?? allowsSpinning
        var alone = options
        alone.intraOpThreads = options.intraOpThreads ?? max(threadsPerRun, threadsAlone)
        if alone.intraOpThreads == shared.intraOpThreads {
            alone = shared
            maker = nil
        } else {
            alone.releasesArenaAfterRuns = true
            maker = SessionMaker(modelPath: modelPath, options: shared, optimizedModels: optimizedModels)
        }
        self.alone = try Self.load(modelPath, options: alone, optimizedModels: optimizedModels)
    }

    /// Starts making the shared session on a thread of its own, unless it is made or being made: for a
    /// request of several calls, before its first call.
    public func prepareShared() {
        maker?.start()
    }

    /// Whether calls in flight have a session of their own, with fewer threads than `alone`.
    public var hasSharedSession: Bool { maker != nil }

    /// Runs the model on the executor (see `InferenceSession.run(_:outputs:limit:)`), alone when `alone`
    /// is asked for and the engine is idle, else beside the engine's other calls.
    /// `ran`, when given, is told how many seconds the run itself took (not its wait for a place) and whether
    /// it ran alone.
    public func run(_ feeds: [String: Tensor], outputs: [String]? = nil, alone: Bool,
                    ran: (@Sendable (_ seconds: Double, _ alone: Bool) -> Void)? = nil) async throws -> [String: Tensor] {
        try await InferenceExecutor.shared.run(limit: limit, alone: alone) { runsAlone in
            let start = ContinuousClock.now
            let outputs = try (runsAlone ? self.alone : self.shared()).run(feeds, outputs: outputs)
            if let ran {
                let elapsed = start.duration(to: .now).components
                ran(Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18, runsAlone)
            }
            return outputs
        }
    }

    /// Whether the shared session is made (or is `alone`).
    var sharedIsMade: Bool { maker?.isMade ?? true }

    /// The session calls in flight share, made here or waited for while it is being made; a failed
    /// making is tried again here and its error thrown.
    public func shared() throws -> InferenceSession {
        try maker?.session() ?? alone
    }

    static func load(_ modelPath: String, options: SessionOptions,
                     optimizedModels: OptimizedModelCache?) throws -> InferenceSession {
        try optimizedModels?.session(modelPath: modelPath, options: options)
            ?? InferenceSession(modelPath: modelPath, options: options)
    }
}

/// A session made on a thread of its own once started (or by the first caller that needs it), and handed out once ready.
private final class SessionMaker: @unchecked Sendable {
    private let modelPath: String
    private let options: SessionOptions
    private let optimizedModels: OptimizedModelCache?
    /// Guards `made`; held only for a moment.
    private let lock = NSLock()
    /// Held while the session is made, so it is made once.
    private let making = NSLock()
    private var made: InferenceSession?
    private var started = false

    init(modelPath: String, options: SessionOptions, optimizedModels: OptimizedModelCache?) {
        self.modelPath = modelPath
        self.options = options
        self.optimizedModels = optimizedModels
    }

    /// Starts making the session on a thread of its own, once; a failure there is left for `session()`.
    func start() {
        let first: Bool = lock.withLock {
            defer { started = true }
            return !started && made == nil
        }
        guard first else { return }
        let thread = Thread { [self] in _ = try? session() }
        thread.name = "chorus.session"
        thread.start()
    }

    var isMade: Bool { lock.withLock { made != nil } }

    /// The session, made here if the thread has not made it (or failed to).
    func session() throws -> InferenceSession {
        if let made = lock.withLock({ made }) { return made }
        return try making.withLock {
            if let made = lock.withLock({ made }) { return made }
            let session = try PieceSessions.load(modelPath, options: options, optimizedModels: optimizedModels)
            lock.withLock { made = session }
            return session
        }
    }
}
