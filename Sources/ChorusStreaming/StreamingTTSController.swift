import Foundation

/// Speaks text that arrives piece by piece: feeds it to a provider and plays the audio on a sink
/// while more text is still coming.
///
/// ```swift
/// let controller = StreamingTTSController(provider: provider, sink: sink)
/// try await controller.start()
/// controller.yield(text: "Hello there! ")
/// controller.yield(text: "This is streaming playback.")
/// controller.finish()
/// try await controller.waitUntilFinished()
/// ```
/// One controller speaks one stream; a second `start()` throws `StreamingError.alreadyStarted`.
public actor StreamingTTSController {
    /// Status changes; a slow reader sees only the newest. Meant for one reader.
    public nonisolated let status: AsyncStream<PlaybackStatus>

    private let provider: any TTSProvider
    private let pipeline: StreamingAudioPipeline
    private let text: AsyncStream<String>
    private let textInput: AsyncStream<String>.Continuation
    private let statusInput: AsyncStream<PlaybackStatus>.Continuation
    private nonisolated let backlog = TextBacklog()
    private var phase = Phase.idle
    private var run: Task<Void, any Error>?

    private enum Phase { case idle, started, cancelled }

    public init(
        provider: any TTSProvider, sink: any AudioSink,
        configuration: AudioPipelineConfiguration = AudioPipelineConfiguration()
    ) {
        self.provider = provider
        (text, textInput) = AsyncStream<String>.makeStream()
        let (status, statusInput) = AsyncStream<PlaybackStatus>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.status = status
        self.statusInput = statusInput
        statusInput.yield(.idle)
        pipeline = StreamingAudioPipeline(sink: sink, configuration: configuration) { status in
            statusInput.yield(status)
            if status.isTerminal { statusInput.finish() }
        }
    }

    /// Opens the sink and starts the provider; text yielded before this is kept and spoken first.
    /// Throws `alreadyStarted`, `alreadyCancelled`, or the sink's error (e.g. no sound device).
    public func start() async throws {
        switch phase {
        case .started: throw StreamingError.alreadyStarted
        case .cancelled: throw StreamingError.alreadyCancelled
        case .idle: phase = .started
        }
        let format = provider.outputFormat
        do {
            try await pipeline.open(for: format)
        } catch {
            statusInput.yield(.failed(String(describing: error)))
            statusInput.finish()
            throw error
        }
        // cancel() may have run while the sink was opening.
        guard phase == .started else {
            await pipeline.close()
            throw StreamingError.alreadyCancelled
        }
        let bytes = provider.stream(text: backlog.counting(text))
        run = Task { [pipeline, backlog] in
            defer { backlog.close() }  // nothing takes text any more: a waiting writer must not wait for ever
            try await pipeline.play(bytes, format: format)
        }
    }

    /// Adds text to speak; it is spoken after what came before. Ignored after `finish()` or `cancel()`.
    public nonisolated func yield(text piece: String) {
        backlog.add(piece.utf8.count)
        textInput.yield(piece)
    }

    /// Blocks the calling thread while more than `limit` bytes of yielded text wait for the provider, so
    /// a writer that reads text faster than it is spoken (`yes | chorus speak --stream -`) pauses instead of
    /// filling memory. Returns at once after `cancel()` or once the stream has ended. For a thread of the
    /// writer's own that reads blocking input, never for a Swift concurrency task.
    public nonisolated func waitForRoom(upTo limit: Int) {
        backlog.wait(atMost: limit)
    }

    /// Bytes of yielded text the provider has not taken yet.
    nonisolated var pendingTextBytes: Int { backlog.count }

    /// Says that no more text will come; what was given is still spoken.
    public nonisolated func finish() {
        textInput.finish()
    }

    /// Returns once everything was played; throws the provider's or sink's error, or
    /// `CancellationError` when the stream was cancelled. Cancelling the waiting task cancels the stream.
    public func waitUntilFinished() async throws {
        guard let run else {
            throw phase == .cancelled ? CancellationError() as any Error : StreamingError.notStarted
        }
        try await withTaskCancellationHandler {
            try await run.value
        } onCancel: {
            run.cancel()
        }
    }

    /// Stops at once: ends the text, stops the provider and the sink, and returns when all of the
    /// stream's work has ended.
    public func cancel() async {
        let wasStarted = phase == .started
        phase = .cancelled
        // The run is cancelled before the text ends, so the pipeline cannot take the end of the
        // text for the end of speech and finish the sink (a file would be kept as if complete).
        run?.cancel()
        textInput.finish()
        backlog.close()
        if let run {
            _ = await run.result
        } else if wasStarted {
            await pipeline.close()
        }
        statusInput.yield(.cancelled)
        statusInput.finish()
    }

    /// Speaks `text` from start to end: `start()`, `yield(text:)`, `finish()`, `waitUntilFinished()`.
    public func speak(_ text: String) async throws {
        try await start()
        yield(text: text)
        finish()
        try await waitUntilFinished()
    }

    /// Counters of the pipeline, for tests and benchmarks.
    public var statistics: PipelineStatistics {
        get async { await pipeline.statistics }
    }
}

/// Text handed to `yield` that the provider has not taken yet, in UTF-8 bytes, so that a fast writer can wait.
private final class TextBacklog: @unchecked Sendable {
    private let condition = NSCondition()
    private var bytes = 0
    private var closed = false

    var count: Int { condition.withLock { bytes } }

    func add(_ count: Int) {
        condition.withLock { bytes += count }
    }

    /// Marks text as taken as the provider reads it from `text`; the end of `text` ends the waiting.
    func counting(_ text: AsyncStream<String>) -> AsyncStream<String> {
        let source = Source(text.makeAsyncIterator())
        return AsyncStream { [self] in
            guard let piece = await source.next() else {
                close()
                return nil
            }
            condition.withLock {
                bytes -= piece.utf8.count
                condition.broadcast()
            }
            return piece
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func wait(atMost limit: Int) {
        condition.withLock {
            while bytes > limit, !closed { condition.wait() }
        }
    }

    /// The one iterator of the controller's text; `AsyncStream(unfolding:)` calls it one call at a time.
    private final class Source: @unchecked Sendable {
        private var iterator: AsyncStream<String>.Iterator
        init(_ iterator: AsyncStream<String>.Iterator) { self.iterator = iterator }
        func next() async -> String? {
            var copy = iterator
            defer { iterator = copy }
            return await copy.next()
        }
    }
}
