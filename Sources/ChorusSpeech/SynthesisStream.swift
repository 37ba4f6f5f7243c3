/// The stream every engine's `stream(_:)` returns when it makes audio in a task of its own: `produce` runs in a
/// task that yields chunks in order; the stream ends when it returns, fails with what it throws, and the task
/// is cancelled when the reader stops reading (which ends the model call in progress, through the inference
/// executor's cancellation).
public enum SynthesisStream {
    /// A stream fed by `produce`.
    public static func make(
        _ produce: @escaping @Sendable (_ yield: @escaping @Sendable (AudioChunk) -> Void) async throws -> Void
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await produce { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
