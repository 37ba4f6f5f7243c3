import ChorusFiles

/// A sink that plays nothing but takes as long as playing would, on a clock of the caller's choice.
///
/// With `ContinuousClock` it consumes in real time, for benchmarks: it records how late each piece
/// started after the previous one ended (the gaps a listener would hear). With a test clock that
/// the test advances by hand, a test controls playback without sleeping.
public final class ClockedNullSink<C: Clock>: AudioSink where C.Duration == Duration {
    public let name = "null sink"
    private let clock: C
    private let keepsSamples: Bool
    private let rate: Int?
    private let queue: Locked<Queue>
    private let reportState: Locked<ClockedNullSinkReport>

    private struct Piece {
        var samples: [Float]
        var count: Int
        var scheduledAt: C.Instant
        var onPlayed: @Sendable () -> Void
    }

    private struct Queue {
        var format: SinkFormat?
        var pieces: AsyncStream<Piece>.Continuation?
        var stream: AsyncStream<Piece>?
        var consumer: Task<Void, Never>?
    }

    /// - Parameters:
    ///   - sampleRate: the rate to ask the pipeline for; nil takes the provider's.
    ///   - keepsSamples: whether to keep every played sample in `report.samples`, for tests.
    public init(clock: C, sampleRate: Int? = nil, keepsSamples: Bool = false) {
        self.clock = clock
        self.rate = sampleRate
        self.keepsSamples = keepsSamples
        queue = Locked(Queue())
        reportState = Locked(ClockedNullSinkReport())
    }

    /// What the sink saw so far.
    public var report: ClockedNullSinkReport { reportState.withLock { $0 } }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        let format = SinkFormat(sampleRate: rate ?? source.sampleRate, channels: source.channels)
        let (stream, pieces) = AsyncStream<Piece>.makeStream()
        queue.withLock { $0 = Queue(format: format, pieces: pieces, stream: stream) }
        reportState.withLock { $0.events.append(.opened(format)) }
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        guard let pieces = queue.withLock({ $0.pieces }) else { throw AudioSinkError.notOpen(sink: name) }
        reportState.withLock { report in
            report.events.append(.scheduled(samples.count))
            report.scheduledSamples += samples.count
            report.maxQueuedSamples = max(report.maxQueuedSamples, report.scheduledSamples - report.playedSamples)
        }
        pieces.yield(Piece(samples: keepsSamples ? samples : [], count: samples.count, scheduledAt: clock.now, onPlayed: onPlayed))
    }

    public func play() async throws {
        queue.withLock { queue in
            guard queue.consumer == nil, let stream = queue.stream, let format = queue.format else { return }
            // Recorded before the consumer exists, so no `.played` can be reported ahead of it.
            reportState.withLock { $0.events.append(.playStarted) }
            queue.consumer = Task { [self] in await consume(stream, format: format) }
        }
    }

    public func finish() async throws {
        await close(event: .finished)
    }

    public func stop() async {
        await close(event: .stopped)
    }

    private func close(event: ClockedNullSinkReport.Event) async {
        let (pieces, consumer) = queue.withLock { queue in
            defer { queue = Queue() }
            return (queue.pieces, queue.consumer)
        }
        pieces?.finish()
        consumer?.cancel()
        await consumer?.value
        reportState.withLock { $0.events.append(event) }
    }

    /// Plays each piece for its duration, back to back; a piece that arrives after the previous one
    /// ended starts late, and that gap is recorded.
    private func consume(_ stream: AsyncStream<Piece>, format: SinkFormat) async {
        var end: C.Instant?
        for await piece in stream {
            var start = piece.scheduledAt
            if let end {
                let gap = end.duration(to: piece.scheduledAt)
                reportState.withLock { $0.gaps.append(max(.zero, gap)) }
                start = max(end, piece.scheduledAt)
            }
            // Sleeping to absolute deadlines keeps the clock's own wake-up delays from adding up.
            let deadline = start.advanced(by: .seconds(format.duration(ofSamples: piece.count)))
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            end = deadline
            reportState.withLock { report in
                report.playedSamples += piece.count
                report.events.append(.played(piece.count))
                if keepsSamples { report.samples += piece.samples }
            }
            piece.onPlayed()
        }
    }
}

extension ClockedNullSink where C == ContinuousClock {
    /// A sink that consumes in real time.
    public convenience init(sampleRate: Int? = nil) {
        self.init(clock: ContinuousClock(), sampleRate: sampleRate)
    }
}

/// What a `ClockedNullSink` saw.
public struct ClockedNullSinkReport: Sendable, Equatable {
    /// One thing that happened to the sink.
    public enum Event: Sendable, Equatable {
        case opened(SinkFormat)
        case scheduled(Int)
        case playStarted
        case played(Int)
        case finished
        case stopped
    }

    /// Everything in order.
    public var events: [Event] = []
    public var scheduledSamples = 0
    public var playedSamples = 0
    /// The most samples ever queued and not yet played.
    public var maxQueuedSamples = 0
    /// For each piece after the first: how long after the previous piece ended it started.
    public var gaps: [Duration] = []
    /// The played samples, when the sink keeps them.
    public var samples: [Float] = []

    /// Samples scheduled before `play()` was called, or all of them if it never was.
    public var samplesScheduledBeforePlay: Int {
        var total = 0
        for event in events {
            if case .playStarted = event { return total }
            if case .scheduled(let count) = event { total += count }
        }
        return total
    }
}
