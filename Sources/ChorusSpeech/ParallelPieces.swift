import Foundation

/// The model calls of one utterance, run up to `inFlight` at once ahead of the consumer and handed
/// back in the order of their inputs. A call may hand back outputs before it ends (`streaming`: an engine
/// that streams audio within a piece): the consumer gets them as they come when the call is the one it
/// waits for, else once the calls before it are handed back.
///
/// With `firstRunsAlone`, the first call runs alone, so the first audio is as early as the machine
/// allows (the engine gives a call alone all its threads); when it is done (at once without it), the window fills,
/// and each call handed back makes room for the next, so `inFlight` calls stay busy while the consumer
/// writes or plays. The window may be wider than the calls the engine runs at once (its `RunLimit`):
/// a call that ends before the one ahead of it is handed back then frees its core for a call already
/// waiting, not for one started only when the consumer comes back. With `inFlight` 1 nothing runs
/// ahead: each call is made when the consumer asks, as before calls ran in parallel.
///
/// With `oneAfterAnother`, the calls run one at a time, each alone (so with every thread of its
/// engine), each started as soon as the one before it ends, up to `inFlight` calls ahead of the
/// consumer: how speech heard as it is made runs (`SynthesisRequest.Priority.firstAudio`). On 2 cores,
/// Kokoro's calls side by side on one thread each took 1.8 times as long as a call alone, so a piece
/// made beside another was late for the audio before it (StreamingBench, 2x1: gaps of up to 484 ms;
/// one after another: none).
///
/// Calls run in tasks of their own (`next()` returns between them), so cancellation is passed on by
/// hand: when the consumer is cancelled while it waits in `next()`, or a call fails, every call in
/// flight is cancelled and awaited before `next()` throws, so none is left running. A consumer
/// cancelled between two calls ends an `AsyncThrowingStream(unfolding:)` without asking for more; the
/// stream then lets go of this object, which cancels the calls in flight without waiting for them
/// (each stops after the operator it is in).
///
/// `@unchecked Sendable` because `AsyncThrowingStream(unfolding:)` calls `next` from one consumer,
/// one call at a time, so its state is never touched concurrently; the tasks it starts touch only
/// their own input.
public final class ParallelPieces<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    /// One output of a call: what the call was given, what it made, whether another call follows, and
    /// whether it came before the call's end (more of the call's outputs follow; `isLast` is then false).
    public struct Piece: Sendable {
        public var input: Input
        public var output: Output
        public var isLast: Bool
        public var isEarly = false
    }

    private let inFlight: Int
    private let firstRunsAlone: Bool
    private let oneAfterAnother: Bool
    private let nextInput: () throws -> Input?
    private let run: @Sendable (Input, Bool, @escaping @Sendable (Output) -> Void) async throws -> Output
    private var running: [(input: Input, call: Call)] = []
    private var waiting: Input?
    private var inputsEnded = false
    private var handedBack = 0
    private var failure: Error?

    /// - Parameters:
    ///   - inFlight: calls started ahead of the consumer and not yet handed back (at least 1).
    ///   - firstRunsAlone: whether the first call runs before any other starts.
    ///   - oneAfterAnother: whether every call waits for the one before it to end, and runs alone.
    ///   - nextInput: the next call's input, nil when there are no more; called from `next()` only,
    ///     one input ahead of the calls at most, so text is prepared (phonemized) as it is needed.
    ///   - streaming: one model call, told whether it runs alone: started while no other call of this
    ///     utterance runs, and none will start beside it before it is handed back (the first with
    ///     `firstRunsAlone`, a lone or last call), so it may take every thread of its engine. It may pass
    ///     outputs to `early` before it returns its last.
    public init(inFlight: Int, firstRunsAlone: Bool = true, oneAfterAnother: Bool = false,
                nextInput: @escaping () throws -> Input?,
                streaming: @escaping @Sendable (_ input: Input, _ alone: Bool,
                                                _ early: @escaping @Sendable (Output) -> Void) async throws -> Output) {
        precondition(inFlight > 0, "at least one call in flight")
        self.inFlight = inFlight
        self.firstRunsAlone = firstRunsAlone
        self.oneAfterAnother = oneAfterAnother
        self.nextInput = nextInput
        self.run = streaming
    }

    /// Calls that each make one output, when they end.
    public convenience init(inFlight: Int, firstRunsAlone: Bool = true, oneAfterAnother: Bool = false,
                            nextInput: @escaping () throws -> Input?,
                            run: @escaping @Sendable (_ input: Input, _ alone: Bool) async throws -> Output) {
        self.init(inFlight: inFlight, firstRunsAlone: firstRunsAlone, oneAfterAnother: oneAfterAnother,
                  nextInput: nextInput) { input, alone, _ in try await run(input, alone) }
    }

    /// Calls made by `run`, which is not told whether a call runs alone.
    public convenience init(inFlight: Int, firstRunsAlone: Bool = true, nextInput: @escaping () throws -> Input?,
                            run: @escaping @Sendable (_ input: Input) async throws -> Output) {
        self.init(inFlight: inFlight, firstRunsAlone: firstRunsAlone, nextInput: nextInput) { input, _ in try await run(input) }
    }

    /// Calls for `pieces` of text, each expanded by `inputs` into its calls (a piece may need several
    /// model calls, or none), expanded one piece at a time as the calls are needed. `severalCalls` is
    /// called once, when the first call's input is made and more follow (another call of its piece, or
    /// another piece), before that call starts: what calls side by side need can be readied meanwhile.
    public convenience init<Piece>(
        inFlight: Int, firstRunsAlone: Bool = true, oneAfterAnother: Bool = false, pieces: [Piece],
        inputs: @escaping (Piece) throws -> [Input], severalCalls: @escaping () -> Void = {},
        streaming: @escaping @Sendable (_ input: Input, _ alone: Bool,
                                        _ early: @escaping @Sendable (Output) -> Void) async throws -> Output
    ) {
        var nextPiece = 0
        var waiting: [Input] = []
        var first = true
        self.init(inFlight: inFlight, firstRunsAlone: firstRunsAlone, oneAfterAnother: oneAfterAnother, nextInput: {
            while waiting.isEmpty, nextPiece < pieces.count {
                let piece = pieces[nextPiece]
                nextPiece += 1
                waiting = try inputs(piece)
            }
            guard !waiting.isEmpty else { return nil }
            let input = waiting.removeFirst()
            if first {
                first = false
                if !waiting.isEmpty || nextPiece < pieces.count { severalCalls() }
            }
            return input
        }, streaming: streaming)
    }

    /// Calls for `pieces` that each make one output, when they end.
    public convenience init<Piece>(
        inFlight: Int, firstRunsAlone: Bool = true, oneAfterAnother: Bool = false, pieces: [Piece],
        inputs: @escaping (Piece) throws -> [Input], severalCalls: @escaping () -> Void = {},
        run: @escaping @Sendable (_ input: Input, _ alone: Bool) async throws -> Output
    ) {
        self.init(inFlight: inFlight, firstRunsAlone: firstRunsAlone, oneAfterAnother: oneAfterAnother, pieces: pieces,
                  inputs: inputs, severalCalls: severalCalls) { input, alone, _ in try await run(input, alone) }
    }

    /// Calls for `pieces` as an engine with `parallelism` runs them for `priority`
    /// (`PieceParallelism.schedule(for:)`): one after another, two ahead, or `callsAhead` side by side.
    /// `severalCalls` is called only for calls side by side, the ones that need it.
    public convenience init<Piece>(
        parallelism: PieceParallelism, priority: SynthesisRequest.Priority, pieces: [Piece],
        inputs: @escaping (Piece) throws -> [Input], severalCalls: @escaping () -> Void = {},
        run: @escaping @Sendable (_ input: Input, _ alone: Bool) async throws -> Output
    ) {
        self.init(schedule: parallelism.schedule(for: priority), callsAhead: parallelism.callsAhead, pieces: pieces,
                  inputs: inputs, severalCalls: severalCalls) { input, alone, _ in try await run(input, alone) }
    }

    /// Calls for `pieces` run on `schedule`: one after another, one ahead of the consumer (two in flight), or
    /// `callsAhead` side by side.
    public convenience init<Piece>(
        schedule: PieceParallelism.Schedule, callsAhead: Int, pieces: [Piece],
        inputs: @escaping (Piece) throws -> [Input], severalCalls: @escaping () -> Void = {},
        streaming: @escaping @Sendable (_ input: Input, _ alone: Bool,
                                        _ early: @escaping @Sendable (Output) -> Void) async throws -> Output
    ) {
        switch schedule {
        case .oneAfterAnother:
            self.init(inFlight: 2, firstRunsAlone: false, oneAfterAnother: true, pieces: pieces, inputs: inputs,
                      streaming: streaming)
        case .sideBySide(let firstAlone):
            self.init(inFlight: callsAhead, firstRunsAlone: firstAlone, pieces: pieces,
                      inputs: inputs, severalCalls: severalCalls, streaming: streaming)
        }
    }

    deinit {
        for entry in running { entry.call.task?.cancel() }
    }

    /// The next output in input order: the next one the head call hands back early, or its last once it is
    /// done; nil when every input is spoken.
    public func next() async throws -> Piece? {
        do {
            if let failure {
                self.failure = nil
                throw failure
            }
            try Task.checkCancellation()
            if handedBack > 0 || !firstRunsAlone {
                try start(upTo: inFlight)
            } else if running.isEmpty {
                try start(upTo: 1)
            }
            guard let head = running.first else { return nil }
            let call = head.call
            let made = await withTaskCancellationHandler {
                await call.next()
            } onCancel: {
                call.task?.cancel()
            }
            // A consumer cancelled just as the call ended still stops the calls after it.
            try Task.checkCancellation()
            let output: Output
            switch made {
            case .early(let early):
                return Piece(input: head.input, output: early, isLast: false, isEarly: true)
            case .ended(let result):
                output = try result.get()
            }
            running.removeFirst()
            handedBack += 1
            var isLast = false
            do {
                if inFlight > 1 { try start(upTo: inFlight) }
                isLast = try running.isEmpty && peek() == nil
            } catch {
                // The input after this piece cannot be made; this piece's audio is still handed back.
                failure = error
            }
            return Piece(input: head.input, output: output, isLast: isLast)
        } catch {
            await stopAll()
            throw error
        }
    }

    /// Starts calls until `limit` are running or the inputs end.
    private func start(upTo limit: Int) throws {
        while running.count < limit, let input = try peek() {
            waiting = nil
            // Alone: nothing else runs, and nothing will start beside it (the first alone, or the last).
            let alone = try oneAfterAnother || (running.isEmpty && (limit == 1 || peek() == nil))
            let run = run
            let call = Call()
            let before = oneAfterAnother ? running.last?.call : nil
            call.task = Task {
                do {
                    // One after another: this call starts when the one before it has ended, and not
                    // at all when that one failed (its error is what the consumer gets).
                    if let before {
                        _ = try await before.ended().get()
                        try Task.checkCancellation()
                    }
                    call.finish(.success(try await run(input, alone) { call.handBack($0) }))
                } catch {
                    call.finish(.failure(error))
                }
            }
            running.append((input, call))
        }
    }

    /// The next input, read once and kept until it is started.
    private func peek() throws -> Input? {
        if let waiting { return waiting }
        guard !inputsEnded else { return nil }
        waiting = try nextInput()
        if waiting == nil { inputsEnded = true }
        return waiting
    }

    /// Cancels every call in flight and waits until each has stopped.
    private func stopAll() async {
        let calls = running
        running = []
        inputsEnded = true
        waiting = nil
        for entry in calls { entry.call.task?.cancel() }
        for entry in calls { _ = await entry.call.ended() }
    }

    /// One call in flight: its task, the outputs it handed back early and not yet taken, and its last output
    /// once it is done, handed to whoever waits for them.
    ///
    /// The consumer waits here rather than on the task's `value`: with Swift 6.3.1 on Linux, a consumer
    /// awaiting `value` was at times not resumed when the task ended, but only when another task of the
    /// process ended (Kokoro, 20 sentences, 2 cores under load: the first piece ended at 23.7 s and was
    /// handed back at 34.4 s, when the third ended, leaving a core idle meanwhile; the process's
    /// dispatch workers were all idle). A continuation resumed by the task itself has not shown this.
    /// A small program of the same shape did not reproduce the delay, so its cause is not pinned down.
    private final class Call: @unchecked Sendable {
        /// What a call made that its consumer has not taken: an output handed back early, or its end.
        enum Made {
            case early(Output)
            case ended(Result<Output, Error>)
        }

        private let lock = NSLock()
        private var made: Task<Void, Never>?
        /// The task making the output; set once, right after it starts.
        var task: Task<Void, Never>? {
            get { lock.withLock { made } }
            set { lock.withLock { made = newValue } }
        }
        private var early: [Output] = []
        private var result: Result<Output, Error>?
        /// The consumer, and the call after this one when calls run one after another, each woken by any news.
        private var waiters: [CheckedContinuation<Void, Never>] = []

        /// Keeps an output made before the call's end for the consumer.
        func handBack(_ output: Output) {
            let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
                guard result == nil else { return [] }
                early.append(output)
                defer { self.waiters = [] }
                return self.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func finish(_ result: Result<Output, Error>) {
            let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
                self.result = result
                defer { self.waiters = [] }
                return self.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// The oldest output handed back early and not yet taken, else the call's end, once there is either.
        func next() async -> Made {
            while true {
                let made: Made? = lock.withLock {
                    if !early.isEmpty { return .early(early.removeFirst()) }
                    return result.map { .ended($0) }
                }
                if let made { return made }
                await news { !self.early.isEmpty || self.result != nil }
            }
        }

        /// The call's end (at once if it has ended), leaving its early outputs to the consumer.
        func ended() async -> Result<Output, Error> {
            while true {
                if let result = lock.withLock({ result }) { return result }
                await news { self.result != nil }
            }
        }

        /// Returns once `ready` holds, or when anything changed since it was checked (checked under the lock).
        private func news(_ ready: @escaping () -> Bool) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = lock.withLock {
                    if ready() { return true }
                    waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
