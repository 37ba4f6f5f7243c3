import Foundation
import Testing
@testable import ChorusONNX

/// An engine's model loaded for a call alone (every thread) and for calls side by side (fewer each).
@Suite struct PieceSessionsTests {
    static func sessions(threadsPerRun: Int, threadsAlone: Int, options: SessionOptions = SessionOptions()) throws -> PieceSessions {
        try PieceSessions(modelPath: modelPath("slow_chain"), options: options, inFlight: 2, threadsPerRun: threadsPerRun,
                          threadsAlone: threadsAlone, allowsSpinning: nil, optimizedModels: nil)
    }

    @Test func aCallAloneGetsMoreThreadsOnASessionOfItsOwnThatGivesItsArenaBack() async throws {
        let sessions = try Self.sessions(threadsPerRun: 1, threadsAlone: 2)
        #expect(sessions.hasSharedSession)
        #expect(sessions.alone.releasesArenaAfterRuns)
        let shared = try sessions.shared()
        // Made once and kept.
        #expect(try sessions.shared() === shared)
        #expect(shared !== sessions.alone)
        #expect(!shared.releasesArenaAfterRuns)
        // Both give the same numbers, inside the executor (the job's run options shrink the arena) and out.
        let x = try Tensor((0..<(64 * 256)).map { Float($0 % 97) / 97 }, shape: [64, 256])
        let alone = try await sessions.run(["x": x], alone: true)
        // Outside any executor job (a synchronous closure picks the blocking `run`).
        let runOutside = { (session: InferenceSession) throws -> [String: Tensor] in try session.run(["x": x]) }
        let beside = try runOutside(shared)
        let direct = try runOutside(sessions.alone)
        for name in beside.keys {
            #expect(try alone[name]!.array(of: Float.self) == beside[name]!.array(of: Float.self))
            #expect(try direct[name]!.array(of: Float.self) == beside[name]!.array(of: Float.self))
        }
        #expect(sessions.limit.maximum == 2 && sessions.limit.active == 0)
    }

    @Test func theSharedSessionIsMadeAheadOnAThreadOfItsOwn() async throws {
        let sessions = try Self.sessions(threadsPerRun: 1, threadsAlone: 2)
        #expect(!sessions.sharedIsMade)
        sessions.prepareShared()
        sessions.prepareShared()
        // Made without a call asking for it (waits up to 10 s), and kept.
        for _ in 0..<1_000 where !sessions.sharedIsMade { try await Task.sleep(for: .milliseconds(10)) }
        #expect(sessions.sharedIsMade)
        #expect(try sessions.shared() === sessions.shared())
    }

    @Test func callsBesideOthersWaitForTheSharedSessionWhileItIsMade() async throws {
        let sessions = try Self.sessions(threadsPerRun: 1, threadsAlone: 2)
        let x = try Tensor((0..<(64 * 256)).map { Float($0 % 89) / 89 }, shape: [64, 256])
        // Three calls beside each other before the shared session exists: each waits for it (or makes it).
        let outputs = try await withThrowingTaskGroup(of: [Float].self) { group in
            for _ in 0..<3 { group.addTask { try await sessions.run(["x": x], alone: false)["y"]!.array(of: Float.self) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(outputs).count == 1)
        for _ in 0..<1_000 where !sessions.sharedIsMade { try await Task.sleep(for: .milliseconds(10)) }
        #expect(sessions.sharedIsMade)
        #expect(sessions.limit.active == 0)
    }

    @Test func asManyThreadsAloneAsSharedMakeOneSession() throws {
        let sessions = try Self.sessions(threadsPerRun: 2, threadsAlone: 2)
        #expect(!sessions.hasSharedSession)
        #expect(try sessions.shared() === sessions.alone)
        #expect(!sessions.alone.releasesArenaAfterRuns)
        // Threads set in the options win over the split, so one session serves every call.
        let fixed = try Self.sessions(threadsPerRun: 1, threadsAlone: 2, options: SessionOptions(intraOpThreads: 3))
        #expect(!fixed.hasSharedSession)
    }
}
