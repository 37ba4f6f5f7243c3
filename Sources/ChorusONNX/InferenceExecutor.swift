import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Dedicated threads that run blocking inference, so model calls never hold one of Swift's few
/// shared concurrency threads.
///
/// `run` hands a blocking closure (one `Run`, a whole decode loop, a piece's synthesis) to one of
/// the executor's threads and suspends the calling task until it is done, as swift-nio's
/// `NIOThreadPool.runIfActive` does. While the closure runs, every `InferenceSession` run it makes
/// uses the job's run options: cancelling the awaiting task raises ONNX Runtime's terminate flag, so
/// the run in progress stops after its current operator and that run, and every later one of the job,
/// throws `CancellationError`. Synchronous loops inside a job call `InferenceExecutor.checkCancellation()`.
public final class InferenceExecutor: @unchecked Sendable {
    /// The executor engines use unless given another: one thread per core, at least two, so two
    /// engines (or a synthesis and a recognition) can be inside the runtime at once.
    public static let shared = InferenceExecutor(
        threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount), name: "chorus.inference")

    /// How many jobs can run at once.
    public let threadCount: Int

    private let condition = NSCondition()
    private var pending: [Job] = []
    private var pendingStart = 0

    /// An executor with `threadCount` threads named `name` (seen in debuggers and `top -H`); they
    /// live as long as the process and sleep while there is no work.
    public init(threadCount: Int, name: String) {
        precondition(threadCount > 0, "an executor needs at least one thread")
        self.threadCount = threadCount
        for index in 0..<threadCount {
            let thread = Thread { [self] in work() }
            thread.name = "\(name).\(index)"
            // The runtime and the engines' own loops keep little on the stack; 4 MB leaves room for both.
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// Runs `body` on one of the executor's threads and returns what it returns.
    ///
    /// Throws `CancellationError` without running `body` when the task is cancelled before a thread
    /// takes it; once `body` runs, cancellation stops its model runs (see the type's description).
    /// With `limit`, the call first waits (suspended, not blocking) for one of the limit's places.
    public func run<T: Sendable>(
        limit: RunLimit? = nil, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await run(limit: limit, alone: false) { _ in try body() }
    }

    /// Runs `body` like `run(limit:_:)`; with `alone`, the call takes every place of `limit` when the
    /// limit is idle (nothing holds a place, nobody waits), so nothing else of its engine runs beside it,
    /// and else waits for one place as usual. `body` is told whether it runs alone (always without a limit).
    public func run<T: Sendable>(
        limit: RunLimit?, alone: Bool, _ body: @escaping @Sendable (_ runsAlone: Bool) throws -> T
    ) async throws -> T {
        let places = try await limit?.acquire(everyPlaceIfIdle: alone) ?? 0
        defer { limit?.release(places) }
        let runsAlone = limit.map { places == $0.maximum } ?? alone
        try Task.checkCancellation()
        let control = JobControl()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                // A job cancelled while it waits for a thread gives its caller up at once (and with it
                // the caller's place in a RunLimit), rather than when a thread reaches it in the queue.
                guard control.wait(abandon: { continuation.resume(throwing: CancellationError()) }) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                enqueue(Job(control: control) {
                    // Cancelled while waiting: its caller was already given up.
                    guard control.start() else { return }
                    do {
                        continuation.resume(returning: try body(runsAlone))
                    } catch where control.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } catch {
                        continuation.resume(throwing: error)
                    }
                })
            }
        } onCancel: {
            control.cancel()
        }
    }

    /// Throws `CancellationError` when the job running on this thread was cancelled; does nothing on
    /// threads that are not running a job. The check to use in synchronous loops inside `run`.
    public static func checkCancellation() throws {
        if JobControl.current?.isCancelled == true { throw CancellationError() }
    }

    /// Whether the calling thread is one of an executor's, running a job.
    public static var isInsideJob: Bool { JobControl.current != nil }

    private struct Job {
        let control: JobControl
        let body: () -> Void
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        pending.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while pendingStart == pending.count { condition.wait() }
            let job = pending[pendingStart]
            pendingStart += 1
            if pendingStart == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingStart = 0
            }
            condition.unlock()
            JobControl.current = job.control
            job.body()
            JobControl.current = nil
        }
    }
}

/// A limit on how many of one engine's jobs run at once, shared by everything that engine runs;
/// callers past the limit wait suspended, in arrival order.
public final class RunLimit: @unchecked Sendable {
    /// Jobs allowed at once.
    public let maximum: Int
    private let lock = NSLock()
    private var running = 0
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Int, Error>)] = []
    private var nextID: UInt64 = 0

    /// A limit of `maximum` jobs at once (at least one).
    public init(maximum: Int) {
        precondition(maximum > 0, "a run limit admits at least one job")
        self.maximum = maximum
    }

    /// Jobs holding a place now.
    public var active: Int { lock.withLock { running } }

    /// Runs `body` holding one place for all of it: for work made of several jobs that belong together
    /// (one request whose stages run as overlapping jobs), which pass no limit to `run` themselves.
    public func withPlace<T>(_ body: () async throws -> T) async throws -> T {
        let places = try await acquire()
        defer { release(places) }
        return try await body()
    }

    /// Waits for a place and returns the places taken: one, or with `everyPlaceIfIdle` all of them when
    /// none is held and nobody waits.
    @discardableResult
    func acquire(everyPlaceIfIdle: Bool = false) async throws -> Int {
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, Error>) in
                // The places taken at once, 0 when the caller waits, nil when it was cancelled already.
                let taken: Int? = lock.withLock {
                    if everyPlaceIfIdle, running == 0, waiting.isEmpty {
                        running = maximum
                        return maximum
                    }
                    if running < maximum {
                        running += 1
                        return 1
                    }
                    // A cancel that came before this point found nothing to remove: it is seen here instead.
                    if Task.isCancelled { return nil }
                    waiting.append((id, continuation))
                    return 0
                }
                switch taken {
                case nil: continuation.resume(throwing: CancellationError())
                case 0?: break
                case let places?: continuation.resume(returning: places)
                }
            }
        } onCancel: {
            let cancelled: CheckedContinuation<Int, Error>? = lock.withLock {
                guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return waiting.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Gives back `places` places (what `acquire` returned).
    func release(_ places: Int = 1) {
        let next: [CheckedContinuation<Int, Error>] = lock.withLock {
            var next: [CheckedContinuation<Int, Error>] = []
            for _ in 0..<places {
                if waiting.isEmpty {
                    running -= 1
                } else {
                    // The place passes straight to the next waiter; `running` stays the same.
                    next.append(waiting.removeFirst().continuation)
                }
            }
            return next
        }
        next.forEach { $0.resume(returning: 1) }
    }
}

/// The cancellation state of one job, and the run options its model runs share: one set per
/// runtime, made on the first run, with the terminate flag raised on all of them when cancelled.
final class JobControl: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var started = false
    private var abandon: (@Sendable () -> Void)?
    private var terminations: [TerminationKey: RunTermination] = [:]

    private struct TerminationKey: Hashable {
        var runtime: ObjectIdentifier
        var releasesArena: Bool
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Keeps `abandon`, which gives the caller up, for a cancel that comes while the job waits for a
    /// thread; false when the job was cancelled already, so it should not be queued at all.
    func wait(abandon: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            self.abandon = abandon
            return true
        }
    }

    /// Marks the job as running on a thread; false when it was cancelled (and its caller given up) first.
    func start() -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            started = true
            abandon = nil
            return true
        }
    }

    func cancel() {
        let (raised, giveUp): ([RunTermination], (@Sendable () -> Void)?) = lock.withLock {
            cancelled = true
            let giveUp = started ? nil : abandon
            abandon = nil
            return (Array(terminations.values), giveUp)
        }
        giveUp?()
        raised.forEach { $0.terminate() }
    }

    /// The run options for runs on `runtime` inside this job (terminated already if the job was cancelled).
    func termination(for runtime: OnnxRuntime, model: String, releasesArena: Bool = false) throws -> RunTermination {
        let key = TerminationKey(runtime: ObjectIdentifier(runtime), releasesArena: releasesArena)
        if let existing = lock.withLock({ terminations[key] }) { return existing }
        let made = try RunTermination(runtime: runtime, model: model, releasesArena: releasesArena)
        let (kept, raise): (RunTermination, Bool) = lock.withLock {
            if let existing = terminations[key] { return (existing, false) }
            terminations[key] = made
            return (made, cancelled)
        }
        if raise { kept.terminate() }
        return kept
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "no thread-specific key for the inference executor (pthread_key_create: \(status))")
        return key
    }()

    /// The job running on this thread, if any. Held unretained: the worker sets it for exactly the
    /// time the job's closure (which keeps the control alive) runs.
    static var current: JobControl? {
        get { pthread_getspecific(key).map { Unmanaged<JobControl>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }
}
