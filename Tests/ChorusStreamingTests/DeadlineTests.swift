import ChorusFiles
import ChorusTesting
import Testing

/// ChorusTesting's `withDeadline`: the one deadline for a hang the package's tests use.
@Suite struct DeadlineTests {
    struct Boom: Error {}

    /// Work that ignores cancellation (a continuation no one resumes, the lost wake-up a task group would wait for
    /// forever) ends the wait at the deadline, named; the work is let go afterwards.
    @Test func workThatIgnoresCancellationIsLeftAtTheDeadline() async throws {
        let stuck = Locked<CheckedContinuation<Void, Never>?>(nil)
        await #expect(throws: DeadlineExceeded(what: "a continuation no one resumes", seconds: 0.2)) {
            try await withDeadline("a continuation no one resumes", seconds: 0.2) {
                await withCheckedContinuation { continuation in stuck.withLock { $0 = continuation } }
            }
        }
        #expect("\(DeadlineExceeded(what: "a continuation no one resumes", seconds: 0.2))" == "gave up after 0.2 s: a continuation no one resumes")
        #expect("\(DeadlineExceeded(what: "the 413", seconds: 120))" == "gave up after 120 s: the 413")
        try await eventually { stuck.withLock { $0 != nil } }
        stuck.withLock { $0?.resume() }
    }

    @Test func theWorksResultOrErrorComesThrough() async throws {
        #expect(try await withDeadline("a sum", seconds: 600) { 2 + 2 } == 4)
        await #expect(throws: Boom.self) { try await withDeadline("a failure", seconds: 600) { () throws -> Int in throw Boom() } }
    }

    /// Cancelling the caller cancels the work, whose error is thrown.
    @Test func cancellingTheCallerCancelsTheWork() async throws {
        let waiting = Task {
            try await withDeadline("a long sleep", seconds: 600) { try await Task.sleep(for: .seconds(3_600)) }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
