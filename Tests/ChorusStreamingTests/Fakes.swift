import Foundation
import ChorusSpeech
@testable import ChorusStreaming
import Testing

/// The error fakes throw.
enum FakeError: Error, Equatable {
    case boom
}

/// A synthesizer that makes a deterministic tone-like ramp per sentence, in two chunks, and logs requests.
struct FakeSynthesizer: SpeechSynthesizer {
    let engineName = "fake"
    let sampleRate = 16_000
    let voices = [Voice(id: "plain", engine: "fake", language: "en-US", gender: .unknown)]
    let log = Locked<[String]>([])
    var failingSentence: String?

    var requests: [String] { log.withLock { $0 } }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let log = log, failing = failingSentence, rate = sampleRate
        return AsyncThrowingStream { continuation in
            let task = Task {
                log.withLock { $0.append(request.text) }
                if request.text == failing {
                    continuation.finish(throwing: FakeError.boom)
                    return
                }
                let samples = Self.samples(for: request.text)
                let half = samples.count / 2
                continuation.yield(AudioChunk(samples: Array(samples[..<half]), sampleRate: rate, text: request.text))
                continuation.yield(AudioChunk(samples: Array(samples[half...]), sampleRate: rate, text: request.text))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// 10 ms of samples per character, all distinct enough to catch reordering.
    static func samples(for text: String) -> [Float] {
        (0..<160 * text.count).map { Float(($0 * 7 + text.count) % 200 - 100) / 128 }
    }
}

/// A provider that plays back fixed chunks of bytes once its text has ended, optionally failing
/// after some of them; it records whether its stream was terminated and its task ended.
struct ScriptedProvider: TTSProvider {
    let outputFormat: AudioFormat
    let chunks: [Data]
    var failAfter: Int?
    let probe = Locked(Probe())

    struct Probe {
        var terminated = false
        var producerEnded = false
        var textPieces: [String] = []
    }

    func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error> {
        let chunks = chunks, failAfter = failAfter, probe = probe
        return AsyncThrowingStream { continuation in
            let task = Task {
                defer { probe.withLock { $0.producerEnded = true } }
                for await piece in text { probe.withLock { $0.textPieces.append(piece) } }
                for (index, chunk) in chunks.enumerated() {
                    if index == failAfter {
                        continuation.finish(throwing: FakeError.boom)
                        return
                    }
                    if Task.isCancelled { return }
                    continuation.yield(chunk)
                    await Task.yield()
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                probe.withLock { $0.terminated = true }
                task.cancel()
            }
        }
    }
}

/// A clock that moves only when the test says so.
final class ManualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: (deadline: Instant, waiter: CheckedContinuation<Void, any Error>)] = [:]

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if deadline <= current {
                    lock.unlock()
                    waiter.resume()
                } else if Task.isCancelled {
                    lock.unlock()
                    waiter.resume(throwing: CancellationError())
                } else {
                    sleepers[id] = (deadline, waiter)
                    lock.unlock()
                }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.waiter.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
            current = current.advanced(by: duration)
            let ready = sleepers.filter { $0.value.deadline <= current }
            for key in ready.keys { sleepers.removeValue(forKey: key) }
            return ready.values.map(\.waiter)
        }
        for waiter in due { waiter.resume() }
    }
}

/// Runs `operation` while a helper task keeps moving `clock` forward, so clocked sinks play.
func whileAdvancing<T: Sendable>(
    _ clock: ManualClock, by step: Duration = .milliseconds(50), _ operation: @Sendable () async throws -> T
) async throws -> T {
    let driver = Task {
        while !Task.isCancelled {
            clock.advance(by: step)
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    defer { driver.cancel() }
    return try await operation()
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String { "gave up waiting: deadlock?" }
}

/// Fails instead of hanging when `operation` does not end; the limit is a deadlock guard, not a timing check.
/// It is generous because on a busy 2-core machine other suites' synchronous tests can hold the
/// few shared test threads for minutes (120 s was hit there with no deadlock).
func withDeadlockGuard<T: Sendable>(
    seconds: Double = 600, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut() }
        return value
    }
}

/// Waits until `condition` holds, giving up after a generous limit.
func eventually(_ condition: @Sendable () async -> Bool) async throws {
    for _ in 0..<60_000 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(2))
    }
    throw TimedOut()
}

/// A reproducible pseudo-random source (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `bytes` cut into pieces of 1 to `maximum` bytes, at places a seeded generator picks.
func split(_ bytes: Data, seed: UInt64, maximum: Int = 997) -> [Data] {
    var generator = SplitMix(state: seed)
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
