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
/// The session for calls that run alone is made at once; the shared one when a request of several
/// calls begins (`prepareShared`, on a thread of its own while the first call runs alone), or else
/// when a call first needs it; a one-sentence request never does. While it is being made, one call
/// beside others may borrow the session for calls alone. A call asks to run alone and does so only when nothing else
/// of the engine runs or waits (it then takes every place of `limit`); else it takes one place and the
/// shared session. The alone session gives its arena memory back after each run, so the model's two
/// sessions do not each keep a large call's memory. With as many threads alone as shared, one session
/// serves both.
public final class PieceSessions: @unchecked Sendable {
    /// The session of a call that runs alone.
    public let alone: InferenceSession
    /// The engine's calls at once: `inFlight` places, all of them taken by a call that runs alone.
    public let limit: RunLimit
    /// The options of the shared session, nil when `alone` is shared too.
    private let sharedOptions: SessionOptions?
    private let modelPath: String
    private let optimizedModels: OptimizedModelCache?
    /// Guards `made`, `preparing` and `aloneLent`; held only for a moment.
    private let lock = NSLock()
    /// Held while the shared session is made, so it is made once.
    private let making = NSLock()
    private var made: InferenceSession?
    private var preparing = false
    private var aloneLent = false

    /// Loads the model at `modelPath` for `inFlight` calls at once of `threadsPerRun` threads each, and
    /// a call alone of `threadsAlone` threads. `options` sets everything else; its own `intraOpThreads`
    /// or `allowSpinning`, when set, win over these. `allowsSpinning` is for the shared session (a call
    /// alone keeps the runtime's default). Graphs are optimised through `optimizedModels` (nil: in every
    /// process).
    public init(modelPath: String, options: SessionOptions, inFlight: Int, threadsPerRun: Int, threadsAlone: Int,
                allowsSpinning: Bool?, optimizedModels: OptimizedModelCache?) throws {
        self.modelPath = modelPath
        self.optimizedModels = optimizedModels
        limit = RunLimit(maximum: inFlight)
        var shared = options
        shared.intraOpThreads = options.intraOpThreads ?? threadsPerRun
        shared.allowSpinning = options.allowSpinning ?? allowsSpinning
        var alone = options
        alone.intraOpThreads = options.intraOpThreads ?? max(threadsPerRun, threadsAlone)
        if alone.intraOpThreads == shared.intraOpThreads {
            alone = shared
            sharedOptions = nil
        } else {
            alone.releasesArenaAfterRuns = true
            sharedOptions = shared
        }
        self.alone = try Self.load(modelPath, options: alone, optimizedModels: optimizedModels)
    }

    /// Whether calls in flight have a session of their own, with fewer threads than `alone`.
    public var hasSharedSession: Bool { sharedOptions != nil }

    /// Runs the model on the executor (see `InferenceSession.run(_:outputs:limit:)`), alone when `alone`
    /// is asked for and the engine is idle, else beside the engine's other calls.
    ///
    /// A call beside others while the shared session is still being made borrows the session for calls
    /// alone, if no other call has it, rather than wait with a core idle: the first calls of a text
    /// whose whole comes first (a file) would otherwise all wait for the shared session to be made.
    public func run(_ feeds: [String: Tensor], outputs: [String]? = nil, alone: Bool) async throws -> [String: Tensor] {
        try await InferenceExecutor.shared.run(limit: limit, alone: alone) { runsAlone in
            if runsAlone { return try self.alone.run(feeds, outputs: outputs) }
            guard self.borrowAlone() else { return try self.shared().run(feeds, outputs: outputs) }
            defer { self.lock.withLock { self.aloneLent = false } }
            return try self.alone.run(feeds, outputs: outputs)
        }
    }

    /// Lends the session for calls alone to a call beside others, when the shared one is not made yet
    /// (and is then started) and no other call has borrowed it; a call alone never runs meanwhile, since
    /// it holds every place of `limit`.
    private func borrowAlone() -> Bool {
        guard sharedOptions != nil else { return false }
        let lent: Bool = lock.withLock {
            guard made == nil, !aloneLent else { return false }
            aloneLent = true
            return true
        }
        if lent { prepareShared() }
        return lent
    }

    /// Starts making the shared session on a thread of its own, unless it is made or being made; for a
    /// request of several calls, whose first runs alone meanwhile. A failure is left for `shared()`
    /// to meet again and throw.
    public func prepareShared() {
        guard sharedOptions != nil else { return }
        let start: Bool = lock.withLock {
            guard made == nil, !preparing else { return false }
            preparing = true
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in
            _ = try? shared()
            lock.withLock { preparing = false }
        }
        thread.name = "chorus.session"
        thread.start()
    }

    /// Whether the shared session is made (or is `alone`).
    var sharedIsMade: Bool { sharedOptions == nil || lock.withLock { made != nil } }

    /// The session calls in flight share, made on first use (or waited for while `prepareShared` makes it).
    public func shared() throws -> InferenceSession {
        guard let sharedOptions else { return alone }
        if let made = lock.withLock({ made }) { return made }
        return try making.withLock {
            if let made = lock.withLock({ made }) { return made }
            let session = try Self.load(modelPath, options: sharedOptions, optimizedModels: optimizedModels)
            lock.withLock { made = session }
            return session
        }
    }

    private static func load(_ modelPath: String, options: SessionOptions,
                             optimizedModels: OptimizedModelCache?) throws -> InferenceSession {
        try optimizedModels?.session(modelPath: modelPath, options: options)
            ?? InferenceSession(modelPath: modelPath, options: options)
    }
}
