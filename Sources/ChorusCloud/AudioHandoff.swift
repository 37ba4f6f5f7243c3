import ChorusFiles
import Foundation
import ChorusStreaming

/// Hands a provider's audio from its network task to the pipeline one piece at a time, so that the
/// network is read only as fast as the pipeline pulls.
///
/// The network task's `send` returns once the pipeline has taken the piece. While the pipeline waits
/// for room (its buffer holds `maxBufferedDuration`), the task stays suspended in `send`, stops
/// iterating the transport's inbound sequence, and the transport in turn stops reading its socket
/// (AsyncHTTPClient's body, NIO's WebSocket channel and gRPC's HTTP/2 streams are all pulled), so
/// what a fast server sends waits in the kernel's socket buffers and TCP flow control, not in memory
/// of ours. At most one piece waits here.
package final class AudioHandoff: Sendable {
    private let state = Locked(State())

    private struct State {
        /// Whoever waits for the other side: the pipeline for a piece, or the task for the pipeline to take one.
        var waiter = Waiter.none
        /// How the network task ended; nil while it runs.
        var ended: Result<Void, any Error>?
        /// The pipeline stopped reading (it was cancelled, or dropped the stream): nothing more is taken.
        var closed = false
        var task: Task<Void, Never>?
    }

    private enum Waiter {
        case none
        case pipeline(CheckedContinuation<Data?, any Error>)
        case network(Data, CheckedContinuation<Void, any Error>)
    }

    /// A stream whose bytes come from `produce`, run in a task of its own and paused whenever the
    /// pipeline has not asked for more. What `produce` throws ends the stream with that error. The
    /// task is cancelled when the reader is cancelled or drops the stream.
    package static func stream(
        _ produce: @escaping @Sendable (_ send: @escaping @Sendable (Data) async throws -> Void) async throws -> Void
    ) -> AsyncThrowingStream<Data, any Error> {
        let handoff = AudioHandoff()
        let task = Task {
            do {
                try await produce { try await handoff.send($0) }
                handoff.end(.success(()))
            } catch {
                handoff.end(.failure(error))
            }
        }
        handoff.state.withLock { $0.task = task }
        let release = Release(handoff)
        return AsyncThrowingStream { try await release.handoff.next() }
    }

    /// Closes the handoff when the stream that reads it is released.
    private final class Release: Sendable {
        let handoff: AudioHandoff
        init(_ handoff: AudioHandoff) { self.handoff = handoff }
        deinit { handoff.close() }
    }

    /// Waits until the pipeline takes `data`; throws `CancellationError` once it no longer reads.
    func send(_ data: Data) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (network: CheckedContinuation<Void, any Error>) in
                enum Step {
                    case deliver(CheckedContinuation<Data?, any Error>)
                    case cancelled
                    case wait
                }
                let step: Step = state.withLock { state in
                    if state.closed || Task.isCancelled {
                        state.closed = true
                        return .cancelled
                    }
                    if case .pipeline(let pipeline) = state.waiter {
                        state.waiter = .none
                        return .deliver(pipeline)
                    }
                    // One producer, so nothing else can be queued here.
                    state.waiter = .network(data, network)
                    return .wait
                }
                switch step {
                case .deliver(let pipeline):
                    pipeline.resume(returning: data)
                    network.resume()
                case .cancelled:
                    network.resume(throwing: CancellationError())
                case .wait:
                    break
                }
            }
        } onCancel: {
            close()
        }
    }

    /// The next piece, nil at the end, or the network task's error.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (pipeline: CheckedContinuation<Data?, any Error>) in
                enum Step {
                    case deliver(Data, CheckedContinuation<Void, any Error>)
                    case end(Result<Void, any Error>)
                    case cancelled
                    case wait
                }
                let step: Step = state.withLock { state in
                    if case .network(let data, let network) = state.waiter {
                        state.waiter = .none
                        return .deliver(data, network)
                    }
                    if let ended = state.ended { return .end(ended) }
                    if state.closed || Task.isCancelled {
                        state.closed = true
                        return .cancelled
                    }
                    state.waiter = .pipeline(pipeline)
                    return .wait
                }
                switch step {
                case .deliver(let data, let network):
                    pipeline.resume(returning: data)
                    network.resume()
                case .end(.success):
                    pipeline.resume(returning: nil)
                case .end(.failure(let error)):
                    pipeline.resume(throwing: error)
                case .cancelled:
                    pipeline.resume(throwing: CancellationError())
                case .wait:
                    break
                }
            }
        } onCancel: {
            close()
        }
    }

    /// Records how the network task ended and wakes a waiting pipeline.
    private func end(_ result: Result<Void, any Error>) {
        let pipeline: CheckedContinuation<Data?, any Error>? = state.withLock { state in
            state.ended = result
            guard case .pipeline(let pipeline) = state.waiter else { return nil }
            state.waiter = .none
            return pipeline
        }
        switch result {
        case .success: pipeline?.resume(returning: nil)
        case .failure(let error): pipeline?.resume(throwing: error)
        }
    }

    /// Stops the handoff: whoever waits is woken with `CancellationError` and the network task is cancelled.
    private func close() {
        let (waiter, task) = state.withLock { state in
            state.closed = true
            defer { state.waiter = .none }
            return (state.waiter, state.task)
        }
        switch waiter {
        case .none: break
        case .pipeline(let pipeline): pipeline.resume(throwing: CancellationError())
        case .network(_, let network): network.resume(throwing: CancellationError())
        }
        task?.cancel()
    }
}
