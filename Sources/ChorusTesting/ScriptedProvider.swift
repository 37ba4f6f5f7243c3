import ChorusFiles
import ChorusStreaming
import Foundation

/// A streaming provider that, once its text has ended, plays back fixed chunks of bytes, optionally
/// failing after some of them; it records the text it was given and how its stream ended, so a test
/// can check that a pipeline cancels and drains its providers.
public struct ScriptedProvider: TTSProvider {
    public let outputFormat: AudioFormat
    public let chunks: [Data]
    /// Fail with `FakeError.boom` instead of sending chunk number `failAfter` (nil: never fail).
    public var failAfter: Int?
    private let probe = Locked(Probe())

    private struct Probe {
        var terminated = false
        var producerEnded = false
        var textPieces: [String] = []
    }

    public init(outputFormat: AudioFormat, chunks: [Data], failAfter: Int? = nil) {
        self.outputFormat = outputFormat
        self.chunks = chunks
        self.failAfter = failAfter
    }

    /// Whether the consumer ended the stream (finished, failed or cancelled).
    public var terminated: Bool { probe.withLock { $0.terminated } }
    /// Whether the provider's own task has ended.
    public var producerEnded: Bool { probe.withLock { $0.producerEnded } }
    /// The text pieces received, in order.
    public var textPieces: [String] { probe.withLock { $0.textPieces } }

    public func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error> {
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
