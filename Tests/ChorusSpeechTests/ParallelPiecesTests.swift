import Foundation
import ChorusSpeech
import Testing

/// Counts calls running at once and the most seen, and lets a test hold calls until released.
private final class CallWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var running = 0
    private var most = 0
    private var started: [Int] = []
    private var finished: [Int] = []

    func begin(_ input: Int) {
        _ = begin(input, atMost: .max)
    }

    /// Begins the call only while fewer than `limit` run, as an engine's run limit admits them.
    func begin(_ input: Int, atMost limit: Int) -> Bool {
        lock.withLock {
            guard running < limit else { return false }
            running += 1
            most = max(most, running)
            started.append(input)
            return true
        }
    }

    func end(_ input: Int) {
        lock.withLock {
            running -= 1
            finished.append(input)
        }
    }

    var snapshot: (running: Int, most: Int, started: [Int], finished: [Int]) {
        lock.withLock { (running, most, started, finished) }
    }
}

/// Inputs 0..<count, handed out one by one, counting how many were asked for.
private final class Inputs: @unchecked Sendable {
    private let count: Int
    private(set) var handedOut = 0

    init(count: Int) { self.count = count }

    func next() -> Int? {
        guard handedOut < count else { return nil }
        handedOut += 1
        return handedOut - 1
    }
}

@Suite struct ParallelPiecesTests {
    /// A split for an engine that serves one request only: no call of a whole text of several pieces runs
    /// alone, so a call alone gets no threads of its own; anything else keeps them.
    @Test func aSplitForOneWholeTextOfSeveralPiecesGivesCallsAloneNoThreadsOfTheirOwn() {
        let split = PieceParallelism(inFlight: 2, threadsPerRun: 1)
        #expect(split.threadsAlone(cores: 2) == 2)
        let whole = split.forOnly(SynthesisRequest(text: "One. Two.", priority: .wholeText), pieces: 2)
        #expect(!whole.callsAloneGetEveryThread && whole.threadsAlone(cores: 2) == 1)
        #expect(whole.inFlight == 2 && whole.threadsPerRun == 1)
        #expect(split.forOnly(SynthesisRequest(text: "One.", priority: .wholeText), pieces: 1) == split)
        #expect(split.forOnly(SynthesisRequest(text: "One. Two."), pieces: 2) == split)
    }

    /// A call that takes longer for early inputs, so later ones finish first when run side by side.
    fileprivate static func slowerFirst(_ watch: CallWatch, count: Int) -> @Sendable (Int) async throws -> String {
        { input in
            watch.begin(input)
            defer { watch.end(input) }
            try await Task.sleep(for: .milliseconds(2 * (count - input)))
            return "piece \(input)"
        }
    }

    @Test(arguments: [1, 2, 3, 8])
    func outputsComeBackInInputOrderWithNoneLost(inFlight: Int) async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 12)
        let pieces = ParallelPieces(inFlight: inFlight, nextInput: inputs.next, run: Self.slowerFirst(watch, count: 12))
        var seen: [(Int, String, Bool)] = []
        while let piece = try await pieces.next() { seen.append((piece.input, piece.output, piece.isLast)) }
        #expect(seen.map(\.0) == Array(0..<12))
        #expect(seen.map(\.1) == (0..<12).map { "piece \($0)" })
        #expect(seen.map(\.2) == Array(repeating: false, count: 11) + [true])
        let state = watch.snapshot
        #expect(state.running == 0)
        #expect(state.most <= inFlight)
        #expect(state.started.count == 12)
    }

    @Test func theFirstCallRunsAloneAndLaterOnesSideBySide() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 6)
        let pieces = ParallelPieces(inFlight: 3, nextInput: inputs.next) { (input: Int) async throws -> Int in
            // No call starts before the first one is done.
            if input > 0 { #expect(watch.snapshot.finished.contains(0)) }
            watch.begin(input)
            defer { watch.end(input) }
            // Calls after the first wait (up to 10 s) until three run at once, so that a window that
            // does not fill shows as fewer than three, not as a hang.
            for _ in 0..<10_000 where input > 0 && input < 4 && watch.snapshot.most < 3 {
                try await Task.sleep(for: .milliseconds(1))
            }
            return input
        }
        let first = try #require(try await pieces.next())
        #expect(first.input == 0 && !first.isLast)
        // Once the first was done the window filled: inputs 1, 2 and 3 were taken and started.
        #expect(inputs.handedOut == 4)
        var rest: [Int] = []
        while let piece = try await pieces.next() { rest.append(piece.input) }
        #expect(rest == [1, 2, 3, 4, 5])
        #expect(watch.snapshot.most == 3)
    }

    /// Which calls are told they run alone (and so may take every thread of the engine): those started
    /// while no other call of the utterance runs and before none would start beside them.
    @Test(arguments: [
        (inFlight: 3, count: 6, firstRunsAlone: true, alone: [0]),
        (inFlight: 2, count: 2, firstRunsAlone: true, alone: [0, 1]),
        (inFlight: 2, count: 3, firstRunsAlone: false, alone: []),
        (inFlight: 2, count: 1, firstRunsAlone: false, alone: [0]),
        (inFlight: 1, count: 3, firstRunsAlone: true, alone: [0, 1, 2]),
    ])
    func callsAreToldWhenTheyRunAlone(inFlight: Int, count: Int, firstRunsAlone: Bool, alone: [Int]) async throws {
        let told = CallWatch()
        let inputs = Inputs(count: count)
        let pieces = ParallelPieces(inFlight: inFlight, firstRunsAlone: firstRunsAlone, nextInput: inputs.next) {
            (input: Int, runsAlone: Bool) async throws -> Int in
            if runsAlone { told.begin(input) }
            // Later calls end first, so a call told it runs alone while another runs would show.
            try await Task.sleep(for: .milliseconds(5 * (count - input)))
            return input
        }
        var seen: [Int] = []
        while let piece = try await pieces.next() { seen.append(piece.input) }
        #expect(seen == Array(0..<count))
        #expect(told.snapshot.started.sorted() == alone)
    }

    /// An engine's request runs every call alone, one after another, when the first audio comes first,
    /// and side by side from the first when the whole text does.
    @Test(arguments: [(SynthesisRequest.Priority.firstAudio, [1, 2, 3]), (.wholeText, [])])
    func theRequestsPriorityDecidesWhetherTheFirstCallRunsAlone(priority: SynthesisRequest.Priority, alone: [Int]) async throws {
        let told = CallWatch()
        let pieces = ParallelPieces(parallelism: PieceParallelism(inFlight: 2, threadsPerRun: 1), priority: priority,
                                    pieces: [1, 2, 3], inputs: { [$0] }) { (input: Int, runsAlone: Bool) async throws -> Int in
            if runsAlone { told.begin(input) }
            try await Task.sleep(for: .milliseconds(5 * (4 - input)))
            return input
        }
        var seen: [Int] = []
        while let piece = try await pieces.next() { seen.append(piece.input) }
        #expect(seen == [1, 2, 3])
        #expect(told.snapshot.started == alone)
    }

    /// `severalCalls` is called once, before the first call starts, exactly when more calls follow it.
    @Test(arguments: [([1], 1, false), ([1, 2], 1, true), ([1], 2, true), ([1, 2, 3], 2, true)])
    func severalCallsIsToldBeforeTheFirstCallStarts(pieces: [Int], callsPerPiece: Int, several: Bool) async throws {
        let told = CallWatch()
        let calls = ParallelPieces(inFlight: 2, pieces: pieces, inputs: { Array(repeating: $0, count: callsPerPiece) },
                                   severalCalls: { told.begin(-1) }) { (input: Int, _: Bool) async throws -> Int in
            told.begin(input)
            return input
        }
        var seen: [Int] = []
        while let piece = try await calls.next() { seen.append(piece.input) }
        #expect(seen == pieces.flatMap { Array(repeating: $0, count: callsPerPiece) })
        let started = told.snapshot.started
        #expect(started.filter { $0 == -1 }.count == (several ? 1 : 0))
        if several { #expect(started.first == -1) }
    }

    @Test func withoutTheFirstRunningAloneTheWindowFillsAtOnce() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 4)
        let pieces = ParallelPieces(inFlight: 2, firstRunsAlone: false, nextInput: inputs.next) { (input: Int) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            // The first two wait (up to 10 s) until both run, so a first call left alone shows as one.
            for _ in 0..<10_000 where input < 2 && watch.snapshot.most < 2 {
                try await Task.sleep(for: .milliseconds(1))
            }
            // The second call started while the first still ran.
            if input == 0 { #expect(watch.snapshot.started.contains(1)) }
            return input
        }
        var seen: [Int] = []
        while let piece = try await pieces.next() { seen.append(piece.input) }
        #expect(seen == [0, 1, 2, 3])
        #expect(watch.snapshot.most == 2)
        #expect(watch.snapshot.started.prefix(2).sorted() == [0, 1])
    }

    /// A window one wider than the engine's limit: when a later call ends first, the call after it is
    /// already waiting for the freed place, so it starts while the earliest call still runs.
    @Test func aWindowWiderThanTheLimitKeepsThePlacesBusy() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 3)
        let pieces = ParallelPieces(inFlight: 3, firstRunsAlone: false, nextInput: inputs.next) { (input: Int) async throws -> Int in
            // Two places, as an engine's RunLimit of 2 gives.
            while !watch.begin(input, atMost: 2) { try await Task.sleep(for: .milliseconds(1)) }
            defer { watch.end(input) }
            // Call 0 runs until call 2 has started (up to 10 s); calls 1 and 2 end at once.
            for _ in 0..<10_000 where input == 0 && !watch.snapshot.started.contains(2) {
                try await Task.sleep(for: .milliseconds(1))
            }
            return input
        }
        var seen: [Int] = []
        while let piece = try await pieces.next() { seen.append(piece.input) }
        #expect(seen == [0, 1, 2])
        let state = watch.snapshot
        #expect(state.most == 2)
        // Call 2 started before call 0 ended: the place call 1 freed did not wait for call 0.
        #expect(state.finished.first != 0)
        #expect(state.finished.last == 0)
    }

    @Test func withOneInFlightNothingRunsAheadOfTheConsumer() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 4)
        let pieces = ParallelPieces(inFlight: 1, nextInput: inputs.next, run: Self.slowerFirst(watch, count: 4))
        _ = try await pieces.next()
        _ = try await pieces.next()
        // Two handed back, two started; the third input was read (to know the second was not the last) but not run.
        #expect(watch.snapshot.started == [0, 1])
        #expect(inputs.handedOut == 3)
    }

    @Test func cancellingTheConsumerStopsEveryCallBeforeNextReturns() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 50)
        let pieces = ParallelPieces(inFlight: 3, nextInput: inputs.next) { (input: Int) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            // Long enough that only cancellation ends it.
            try await Task.sleep(for: input == 0 ? .zero : .seconds(600))
            return input
        }
        let (got, runningWhenThrown, threwCancellation) = try await cancelConsumer(of: pieces, watch: watch, afterStarts: 4)
        #expect(got == [0])
        #expect(threwCancellation)
        #expect(runningWhenThrown == 0)
        #expect(watch.snapshot.started.count == 4)
    }

    @Test func droppingThePiecesCancelsTheCallsInFlight() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 10)
        var pieces: ParallelPieces<Int, Int>? = ParallelPieces(inFlight: 3, nextInput: inputs.next) { (input: Int) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            try await Task.sleep(for: input == 0 ? .zero : .seconds(600))
            return input
        }
        #expect(try await pieces?.next()?.input == 0)
        pieces = nil
        // The calls sleep for 10 minutes unless cancelled; wait up to 30 s for them to end.
        for _ in 0..<3_000 where watch.snapshot.running > 0 || watch.snapshot.finished.count < 4 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(watch.snapshot.finished.count == 4)
        #expect(watch.snapshot.running == 0)
    }

    @Test func aFailedCallEndsTheStreamAfterStoppingTheOthers() async throws {
        struct Broken: Error {}
        let watch = CallWatch()
        let inputs = Inputs(count: 10)
        let pieces = ParallelPieces(inFlight: 2, nextInput: inputs.next) { (input: Int) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            if input == 1 { throw Broken() }
            try await Task.sleep(for: input == 0 ? .zero : .seconds(600))
            return input
        }
        #expect(try await pieces.next()?.input == 0)
        await #expect(throws: Broken.self) { try await pieces.next() }
        #expect(watch.snapshot.running == 0)
        #expect(try await pieces.next() == nil)
    }

    @Test func aFailingInputEndsTheStream() async throws {
        struct Unreadable: Error {}
        var handed = 0
        let pieces = ParallelPieces(inFlight: 2, nextInput: { () throws -> Int? in
            handed += 1
            if handed == 3 { throw Unreadable() }
            return handed
        }, run: { (input: Int) async throws -> Int in input * 10 })
        #expect(try await pieces.next()?.output == 10)
        await #expect(throws: Unreadable.self) { try await pieces.next() }
    }

    /// One after another: never two calls at once, each told it runs alone, in input order; the next
    /// call starts as soon as the one before ends, before the consumer asks for it.
    @Test func oneAfterAnotherRunsEachCallAloneAndAheadOfTheConsumer() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 5)
        let pieces = ParallelPieces(inFlight: 2, firstRunsAlone: false, oneAfterAnother: true, nextInput: inputs.next) {
            (input: Int, alone: Bool) async throws -> Int in
            #expect(alone)
            watch.begin(input)
            defer { watch.end(input) }
            // Later calls are quicker, so calls side by side would end out of order.
            try await Task.sleep(for: .milliseconds(3 * (5 - input)))
            return input
        }
        #expect(try await pieces.next()?.input == 0)
        // The consumer asks for nothing more: call 1 was lined up behind call 0 and runs all the same.
        for _ in 0..<10_000 where !watch.snapshot.finished.contains(1) { try await Task.sleep(for: .milliseconds(1)) }
        #expect(watch.snapshot.finished == [0, 1])
        var rest: [Int] = []
        while let piece = try await pieces.next() { rest.append(piece.input) }
        #expect(rest == [1, 2, 3, 4])
        #expect(watch.snapshot.most == 1)
        #expect(watch.snapshot.finished == [0, 1, 2, 3, 4])
    }

    /// One after another, a cancelled consumer stops the call running; the call lined up behind it never runs.
    @Test func oneAfterAnotherStopsOnCancellationWithoutStartingTheNextCall() async throws {
        let watch = CallWatch()
        let inputs = Inputs(count: 10)
        let pieces = ParallelPieces(inFlight: 2, firstRunsAlone: false, oneAfterAnother: true, nextInput: inputs.next) {
            (input: Int, _: Bool) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            try await Task.sleep(for: input == 0 ? .zero : .seconds(600))
            return input
        }
        let (got, runningWhenThrown, threwCancellation) = try await cancelConsumer(of: pieces, watch: watch, afterStarts: 2)
        #expect(got == [0])
        #expect(threwCancellation)
        #expect(runningWhenThrown == 0)
        #expect(watch.snapshot.started == [0, 1])
    }

    /// One after another, a failed call's error reaches the consumer after the pieces before it, in
    /// order, and the call lined up behind it never runs.
    @Test func oneAfterAnotherEndsAtAFailureWithThePiecesBeforeItInOrder() async throws {
        struct Broken: Error {}
        let watch = CallWatch()
        let inputs = Inputs(count: 10)
        let pieces = ParallelPieces(inFlight: 2, firstRunsAlone: false, oneAfterAnother: true, nextInput: inputs.next) {
            (input: Int, _: Bool) async throws -> Int in
            watch.begin(input)
            defer { watch.end(input) }
            if input == 2 { throw Broken() }
            return input
        }
        #expect(try await pieces.next()?.input == 0)
        #expect(try await pieces.next()?.input == 1)
        await #expect(throws: Broken.self) { try await pieces.next() }
        #expect(watch.snapshot.running == 0)
        #expect(!watch.snapshot.started.contains(3))
        #expect(try await pieces.next() == nil)
    }

    @Test func splitsComeFromCoresOrTheEnvironment() throws {
        #expect(PieceParallelism.forCores(1) == PieceParallelism(inFlight: 1, threadsPerRun: 1))
        #expect(PieceParallelism.forCores(2) == PieceParallelism(inFlight: 2, threadsPerRun: 1))
        #expect(PieceParallelism.forCores(8) == PieceParallelism(inFlight: 4, threadsPerRun: 2))
        #expect(try PieceParallelism.current(environment: ["CHORUS_PIECES": "1x2"], cores: 2)
                == PieceParallelism(inFlight: 1, threadsPerRun: 2))
        #expect(try PieceParallelism.current(environment: [:], cores: 2) == .forCores(2))
        // One call more is started than runs at once, except with one call at a time.
        #expect(PieceParallelism(inFlight: 2, threadsPerRun: 1).callsAhead == 3)
        #expect(PieceParallelism(inFlight: 1, threadsPerRun: 2).callsAhead == 1)
        // A call alone gets the threads of every call in flight, as many as there are cores.
        #expect(PieceParallelism(inFlight: 2, threadsPerRun: 1).threadsAlone(cores: 2) == 2)
        #expect(PieceParallelism(inFlight: 2, threadsPerRun: 2).threadsAlone(cores: 2) == 2)
        #expect(PieceParallelism(inFlight: 4, threadsPerRun: 2).threadsAlone(cores: 8) == 8)
        #expect(PieceParallelism(inFlight: 1, threadsPerRun: 4).threadsAlone(cores: 2) == 4)
        #expect(PieceParallelism(inFlight: 3, threadsPerRun: 1).threadsAlone(cores: 2) == 2)
        // Threads spin unless several calls in flight share several threads each.
        #expect(PieceParallelism(inFlight: 2, threadsPerRun: 2).allowsSpinning == false)
        #expect(PieceParallelism(inFlight: 2, threadsPerRun: 1).allowsSpinning == nil)
        #expect(PieceParallelism(inFlight: 1, threadsPerRun: 2).allowsSpinning == nil)
        for bad in ["2", "x1", "0x1", "2x0", "2x1x1", "twoxone", "2x65"] {
            #expect(throws: SpeechError.invalidSetting(name: "CHORUS_PIECES", value: bad,
                                                       expected: "IN_FLIGHTxTHREADS with each from 1 to 64, such as 2x1")) {
                try PieceParallelism.current(environment: ["CHORUS_PIECES": bad], cores: 2)
            }
        }
    }
}

/// Reads `pieces` in a task of its own, cancels it once `count` calls have started, and returns what it got,
/// the calls still running when `next()` threw, and whether what it threw was a cancellation.
private func cancelConsumer(of pieces: ParallelPieces<Int, Int>, watch: CallWatch,
                            afterStarts count: Int) async throws -> (got: [Int], running: Int, threwCancellation: Bool) {
    let consumer = Task {
        var got: [Int] = []
        do {
            while let piece = try await pieces.next() { got.append(piece.input) }
        } catch is CancellationError {
            return (got, watch.snapshot.running, true)
        }
        return (got, watch.snapshot.running, false)
    }
    while watch.snapshot.started.count < count { try await Task.sleep(for: .milliseconds(1)) }
    consumer.cancel()
    return try await consumer.value
}
