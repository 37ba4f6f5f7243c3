import Foundation
import Testing
@testable import ChorusONNX

/// A flag and a counter shared between a test and the jobs it starts.
private final class Shared: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]
    func add(_ key: String, _ amount: Int = 1) -> Int { lock.withLock { values[key, default: 0] += amount; return values[key]! } }
    func get(_ key: String) -> Int { lock.withLock { values[key, default: 0] } }
    /// Polls (sleeping, not blocking a shared thread for long) until `key` reaches `value`.
    func wait(_ key: String, atLeast value: Int) async {
        while get(key) < value { try? await Task.sleep(for: .milliseconds(2)) }
    }
}

@Suite struct InferenceExecutorTests {
    static let slowModel = modelPath("slow_chain")

    /// One run of the slow chain on `rows` rows (4096 rows: tens of milliseconds).
    static func slowRun(_ session: InferenceSession, rows: Int = 4096) throws {
        let x = try Tensor([Float](repeating: 0.5, count: rows * 256), shape: [rows, 256])
        _ = try session.run(["x": x])
    }

    @Test func aJobRunsOnAnExecutorThreadAndReturnsItsValue() async throws {
        #expect(!InferenceExecutor.isInsideJob)
        let (inside, value) = try await InferenceExecutor.shared.run { (InferenceExecutor.isInsideJob, 42) }
        #expect(inside)
        #expect(value == 42)
    }

    @Test func aJobsErrorIsRethrownToTheCaller() async throws {
        struct Failure: Error, Equatable {}
        await #expect(throws: Failure()) { try await InferenceExecutor.shared.run { throw Failure() } }
    }

    @Test func aJobCancelledWhileItWaitsGivesItsCallerUpAtOnceAndNeverRuns() async throws {
        let executor = InferenceExecutor(threadCount: 1, name: "test.single")
        let shared = Shared()
        // The only thread is held until the test lets it go.
        let blocker = Task {
            try await executor.run {
                _ = shared.add("blocking")
                while shared.get("release") == 0 { usleep(1_000) }
            }
        }
        await shared.wait("blocking", atLeast: 1)
        // Lets the thread go after 10 s whatever happens, so a caller left waiting shows as a failure, not a hang.
        let safety = Task {
            try await Task.sleep(for: .seconds(10))
            _ = shared.add("release")
        }
        let queued = Task { try await executor.run { _ = shared.add("queued ran") } }
        try await Task.sleep(for: .milliseconds(20))
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        // The caller came back while the only thread was still held.
        #expect(shared.get("release") == 0)
        _ = shared.add("release")
        safety.cancel()
        try await blocker.value
        // The job, reached in the queue after its caller gave it up, does not run.
        #expect(try await executor.run { shared.get("queued ran") } == 0)
    }

    @Test func cancellingAJobStopsTheModelRunInProgressAndEveryLaterOne() async throws {
        let session = try InferenceSession(modelPath: Self.slowModel)
        let shared = Shared()
        let job = Task {
            try await InferenceExecutor.shared.run {
                // At most 1,000 long runs (minutes): only the cancel ends this loop early.
                for _ in 0..<1_000 {
                    _ = shared.add("started")
                    try Self.slowRun(session, rows: 16_384)
                    _ = shared.add("finished")
                }
            }
        }
        await shared.wait("started", atLeast: 2)
        job.cancel()
        await #expect(throws: CancellationError.self) { try await job.value }
        #expect(shared.get("finished") < 1_000)
        // The session itself is not left stopped: the next job's run works.
        try await InferenceExecutor.shared.run { try Self.slowRun(session, rows: 1) }
    }

    @Test func synchronousLoopsInsideAJobSeeTheCancel() async throws {
        let shared = Shared()
        let job = Task {
            try await InferenceExecutor.shared.run {
                for _ in 0..<60_000 {
                    _ = shared.add("spins")
                    try InferenceExecutor.checkCancellation()
                    usleep(1_000)
                }
            }
        }
        await shared.wait("spins", atLeast: 1)
        job.cancel()
        await #expect(throws: CancellationError.self) { try await job.value }
        #expect(shared.get("spins") < 60_000)
    }

    /// The reason the executor exists: two long syntheses hold executor threads, not the few threads
    /// that every task in the process shares, so a trivial task still gets to run meanwhile. Were the
    /// jobs run on the shared pool (2 threads on a 2-core machine), the trivial task would wait for
    /// them, they would stop at their run cap, and the check below would fail.
    @Test func whileTwoLongJobsRunATrivialTaskOnTheSharedPoolStillCompletes() async throws {
        let session = try InferenceSession(modelPath: Self.slowModel)
        let shared = Shared()
        let jobs = (0..<2).map { _ in
            Task {
                try await InferenceExecutor.shared.run {
                    _ = shared.add("running")
                    // Up to 400 runs (tens of seconds) unless the trivial task finishes first.
                    for _ in 0..<400 where shared.get("trivial done") == 0 { try Self.slowRun(session) }
                    _ = shared.add(shared.get("trivial done") > 0 ? "stopped by the trivial task" : "ran out")
                }
            }
        }
        await shared.wait("running", atLeast: 2)
        let value = await Task.detached { 2 + 2 }.value
        _ = shared.add("trivial done")
        for job in jobs { try await job.value }
        #expect(value == 4)
        #expect(shared.get("stopped by the trivial task") == 2)
    }

    @Test func aRunLimitAdmitsAtMostItsMaximumAtOnce() async throws {
        let limit = RunLimit(maximum: 1)
        let shared = Shared()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await InferenceExecutor.shared.run(limit: limit) {
                        let now = shared.add("inside")
                        if now > 1 { _ = shared.add("overlaps") }
                        usleep(5_000)
                        _ = shared.add("inside", -1)
                        _ = shared.add("done")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(shared.get("done") == 4)
        #expect(shared.get("overlaps") == 0)
        #expect(limit.active == 0)
    }

    @Test func aCallerCancelledWhileWaitingForTheLimitLeavesItWithoutRunning() async throws {
        let limit = RunLimit(maximum: 1)
        let shared = Shared()
        let holder = Task {
            try await InferenceExecutor.shared.run(limit: limit) {
                _ = shared.add("holding")
                while shared.get("release") == 0 { usleep(1_000) }
            }
        }
        await shared.wait("holding", atLeast: 1)
        let waiter = Task { try await InferenceExecutor.shared.run(limit: limit) { _ = shared.add("waiter ran") } }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        _ = shared.add("release")
        try await holder.value
        #expect(shared.get("waiter ran") == 0)
        #expect(limit.active == 0)
        // The place is free again.
        try await InferenceExecutor.shared.run(limit: limit) { _ = shared.add("after") }
        #expect(shared.get("after") == 1)
    }

    /// A call that asks to run alone takes every place of an idle limit, so the others wait and then all
    /// get in at once; while any place is held it takes one and runs beside the holder, told so.
    @Test func aCallAloneTakesEveryPlaceOnlyWhenTheLimitIsIdle() async throws {
        let executor = InferenceExecutor(threadCount: 4, name: "test.alone")
        let limit = RunLimit(maximum: 2)
        let shared = Shared()
        let alone = Task {
            try await executor.run(limit: limit, alone: true) { runsAlone in
                _ = shared.add(runsAlone ? "alone" : "beside")
                while shared.get("release") == 0 { usleep(1_000) }
            }
        }
        await shared.wait("alone", atLeast: 1)
        #expect(limit.active == 2)
        // Two ordinary calls wait until the call alone ends, then run together: each waits (up to 10 s)
        // until the other is in.
        let others = (0..<2).map { _ in
            Task {
                try await executor.run(limit: limit) {
                    _ = shared.add("in")
                    for _ in 0..<10_000 where shared.get("in") < 2 { usleep(1_000) }
                    _ = shared.add(shared.get("in") == 2 ? "together" : "apart")
                    while shared.get("release") < 2 { usleep(1_000) }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(30))
        #expect(shared.get("in") == 0)
        _ = shared.add("release")
        try await alone.value
        await shared.wait("together", atLeast: 2)
        _ = shared.add("release")
        for other in others { try await other.value }
        #expect(shared.get("apart") == 0)
        #expect(limit.active == 0)
        // A place is held: a call asking to run alone takes the other one, at once, and is told it does not.
        let holder = Task {
            try await executor.run(limit: limit) {
                _ = shared.add("holding")
                while shared.get("release") < 3 { usleep(1_000) }
            }
        }
        await shared.wait("holding", atLeast: 1)
        #expect(try await executor.run(limit: limit, alone: true) { $0 } == false)
        _ = shared.add("release")
        try await holder.value
        #expect(shared.get("beside") == 0)
        #expect(limit.active == 0)
        // Idle again: a call alone is told so; without a limit it is always alone.
        #expect(try await executor.run(limit: limit, alone: true) { $0 })
        #expect(try await executor.run(limit: nil, alone: true) { $0 })
    }

    @Test func aPlaceHeldAcrossSeveralJobsKeepsOthersOut() async throws {
        let limit = RunLimit(maximum: 1)
        let shared = Shared()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    // Two jobs side by side under one place, as a request whose stages overlap.
                    try await limit.withPlace {
                        let now = shared.add("holders")
                        if now > 1 { _ = shared.add("overlaps") }
                        async let first: Void = InferenceExecutor.shared.run { usleep(3_000) }
                        async let second: Void = InferenceExecutor.shared.run { usleep(3_000) }
                        _ = try await (first, second)
                        _ = shared.add("holders", -1)
                        _ = shared.add("done")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(shared.get("done") == 3)
        #expect(shared.get("overlaps") == 0)
        #expect(limit.active == 0)
    }
}
