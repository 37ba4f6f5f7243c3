import ChorusFiles
@testable import ChorusServer
import ChorusModels
import Foundation
import Testing

@Suite struct ShutdownDeadlineTests {
    /// SIGTERM did not stop a server whose requests kept every thread of Swift's shared pool busy: the
    /// shutdown itself needed one of those threads. The deadline must fire without one.
    ///
    /// SIGWINCH stands in for SIGTERM: its default action is to be ignored, so a signal sent before Dispatch
    /// has registered the source (which it does in the background) is lost rather than ending the tests; a
    /// thread of its own sends it to the process (as `kill` does; Dispatch on Linux reads a signal sent to
    /// one thread with `raise` only on that thread) until the deadline fires.
    @Test func theDeadlineFiresWhileEveryThreadOfTheSharedPoolIsBusy() async throws {
        let fired = Locked(false)
        let deadline = ShutdownDeadline(signals: [SIGWINCH], after: .milliseconds(100)) { fired.withLock { $0 = true } }
        defer { deadline.cancel() }
        // A deadline for a hang, not a pace: spinners that never see the deadline fire give up and fail.
        let giveUp = ContinuousClock.now + .seconds(120)
        let sender = Thread {
            while !fired.withLock({ $0 }), ContinuousClock.now < giveUp {
                kill(getpid(), SIGWINCH)
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        sender.start()
        await withTaskGroup(of: Void.self) { group in
            // One spinner per thread the pool may have, and then some: none yields until the deadline fired.
            for _ in 0..<(ProcessInfo.processInfo.activeProcessorCount + 2) {
                group.addTask { while !fired.withLock({ $0 }), ContinuousClock.now < giveUp {} }
            }
            await group.waitForAll()
        }
        #expect(fired.withLock { $0 })
    }
}
