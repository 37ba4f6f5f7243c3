import ChorusDSP
import Foundation
import ChorusSpeech
@testable import ChorusStreaming
import ChorusTesting
import Testing

struct TimedOut: Error, CustomStringConvertible {
    var description: String { "gave up waiting: deadlock?" }
}

/// `withDeadline` for this target's tests, naming the caller's line: the limit is a deadlock guard, not a timing
/// check. It is generous because on a busy 2-core machine other suites' synchronous tests can hold the
/// few shared test threads for minutes (120 s was hit there with no deadlock).
func withDeadlockGuard<T: Sendable>(
    seconds: Double = 600, fileID: String = #fileID, line: Int = #line,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withDeadline("the work guarded at \(fileID):\(line) (a deadlock?)", seconds: seconds, operation)
}

/// Waits until `condition` holds, giving up after a generous limit.
func eventually(_ condition: @Sendable () async -> Bool) async throws {
    for _ in 0..<60_000 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(2))
    }
    throw TimedOut()
}

/// `bytes` cut into pieces of 1 to `maximum` bytes, at places a seeded generator picks.
func split(_ bytes: Data, seed: UInt64, maximum: Int = 997) -> [Data] {
    var generator = SeededRandom(seed: seed)
    var pieces: [Data] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(bytes.endIndex, start + Int.random(in: 1...maximum, using: &generator))
        pieces.append(bytes[start..<end])
        start = end
    }
    return pieces
}

func float32Bytes(_ samples: [Float]) -> Data { samples.withUnsafeBytes { Data($0) } }

func int16Bytes(_ values: [Int16]) -> Data { values.withUnsafeBytes { Data($0) } }

/// A finite async sequence of `pieces`.
func byteStream(_ pieces: [Data]) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for piece in pieces { continuation.yield(piece) }
        continuation.finish()
    }
}

/// A deterministic test signal.
func ramp(_ count: Int, seed: Int = 1) -> [Float] {
    (0..<count).map { Float(($0 * 31 + seed) % 1000 - 500) / 512 }
}
