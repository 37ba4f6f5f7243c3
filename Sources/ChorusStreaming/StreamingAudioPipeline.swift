import Foundation

/// Plays a provider's bytes on a sink as they arrive.
///
/// The stages, in order: a `FrameAccumulator` re-aligns the bytes to whole frames; a converter
/// decodes them to Float32 at the sink's rate and channel count; the samples are cut into pieces of
/// at most `chunkDuration` and scheduled on the sink. Playback starts once `playbackWatermark` seconds
/// are scheduled, or when the stream ends, whichever comes first. While `maxBufferedDuration` seconds
/// are scheduled but not played, the pipeline stops pulling from the provider: it suspends until the
/// sink's next "played" report resumes it (once), then checks again.
public actor StreamingAudioPipeline {
    /// Where the audio goes.
    public nonisolated let sink: any AudioSink
    public nonisolated let configuration: AudioPipelineConfiguration
    /// Counters of the current or last stream.
    public private(set) var statistics = PipelineStatistics()

    private let onStatus: @Sendable (PlaybackStatus) -> Void
    private var opened: OpenStream?
    private var isRunning = false

    private struct OpenStream: Equatable {
        var source: AudioFormat
        var sink: SinkFormat
    }

    /// `onStatus` is told every change of status, from the pipeline's task.
    public init(
        sink: any AudioSink,
        configuration: AudioPipelineConfiguration = AudioPipelineConfiguration(),
        onStatus: @escaping @Sendable (PlaybackStatus) -> Void = { _ in }
    ) {
        self.sink = sink
        self.configuration = configuration
        self.onStatus = onStatus
    }

    /// Opens the sink for audio in `source` format ahead of `play`, so that a missing device is
    /// reported before any text is spoken. `play` opens it itself when this was not called.
    @discardableResult
    public func open(for source: AudioFormat) async throws -> SinkFormat {
        if let opened {
            guard opened.source == source else { throw StreamingError.pipelineBusy }
            return opened.sink
        }
        try source.validate()
        let format = try await sink.open(for: source, configuration: configuration)
        opened = OpenStream(source: source, sink: format)
        return format
    }

    /// Releases a sink that was opened but will not be played.
    public func close() async {
        guard opened != nil, !isRunning else { return }
        opened = nil
        await sink.stop()
    }

    /// Plays `bytes`, laid out as `format`, and returns once the sink has played all of it.
    ///
    /// Errors of the byte stream are rethrown unchanged; on any error or cancellation the sink is
    /// stopped before this returns, so nothing keeps running.
    public func play<Bytes: AsyncSequence>(_ bytes: sending Bytes, format: AudioFormat) async throws
    where Bytes.Element == Data {
        guard !isRunning else { throw StreamingError.pipelineBusy }
        isRunning = true
        defer { isRunning = false }
        statistics = PipelineStatistics()
        let reports = PlaybackReports()
        do {
            let sinkFormat = try await open(for: format)
            statistics.sinkFormat = sinkFormat
            var converter = try SampleConverter(source: format, target: sinkFormat)
            var accumulator = FrameAccumulator(bytesPerFrame: format.bytesPerFrame)
            report(.buffering(scheduled: 0))
            for try await data in bytes {
                try Task.checkCancellation()
                statistics.receivedBytes += data.count
                let samples = converter.convert(accumulator.append(data))
                try await schedule(samples, on: sinkFormat, reports: reports)
            }
            // A stream that ends because its consumer was cancelled ends quietly; that is not the end of speech.
            try Task.checkCancellation()
            statistics.discardedBytes = accumulator.finish().count
            try await schedule(converter.finish(), on: sinkFormat, reports: reports)
            try await startPlayback()
            while statistics.bufferedSamples > 0 {
                try await awaitPlayed(reports)
            }
            try await sink.finish()
            opened = nil
            report(.finished(played: statistics.playedDuration))
        } catch {
            opened = nil
            await sink.stop()
            report(error is CancellationError ? .cancelled : .failed(String(describing: error)))
            throw error
        }
    }

    /// Hands `samples` to the sink piece by piece, waiting for room before each piece.
    private func schedule(
        _ samples: [Float], on format: SinkFormat, reports: PlaybackReports
    ) async throws {
        let pieceLength = max(format.channels, format.samples(in: configuration.chunkDuration))
        let limit = max(1, format.samples(in: configuration.maxBufferedDuration))
        let watermark = format.samples(in: configuration.playbackWatermark)
        var start = 0
        while start < samples.count {
            let piece = Array(samples[start..<min(start + pieceLength, samples.count)])
            start += piece.count
            statistics.didPlay(reports.takeUnread())
            if statistics.bufferedSamples >= limit { statistics.backpressureWaits += 1 }
            while statistics.bufferedSamples >= limit {
                // Playing is what frees room; start even below the watermark if the limit is lower.
                try await startPlayback()
                try await awaitPlayed(reports)
            }
            let count = piece.count
            try await sink.schedule(piece) { reports.add(count) }
            statistics.didSchedule(count)
            if statistics.bufferedSamples >= watermark {
                try await startPlayback()
            }
            if !statistics.playbackStarted {
                report(.buffering(scheduled: statistics.scheduledDuration))
            }
        }
    }

    /// Suspends until the sink reports its next piece played.
    private func awaitPlayed(_ reports: PlaybackReports) async throws {
        statistics.didPlay(try await reports.next())
        report(.playing(played: statistics.playedDuration, buffered: statistics.bufferedDuration))
    }

    private func startPlayback() async throws {
        guard !statistics.playbackStarted else { return }
        statistics.playbackStarted = true
        statistics.samplesBeforePlayback = statistics.scheduledSamples
        try await sink.play()
        report(.playing(played: statistics.playedDuration, buffered: statistics.bufferedDuration))
    }

    private func report(_ status: PlaybackStatus) { onStatus(status) }
}

/// What the pipeline did with one stream; sample counts are interleaved samples at the sink's format.
public struct PipelineStatistics: Sendable, Equatable {
    /// The format the sink was fed; nil before it was opened.
    public var sinkFormat: SinkFormat?
    /// Bytes received from the provider.
    public var receivedBytes = 0
    /// Bytes of an incomplete last frame, dropped at the end of the stream.
    public var discardedBytes = 0
    public var scheduledSamples = 0
    public var playedSamples = 0
    /// Scheduled but not yet reported played.
    public var bufferedSamples = 0
    /// The most ever buffered at once, counted right after scheduling a piece.
    public var maxBufferedSamples = 0
    /// Pieces handed to the sink.
    public var scheduledPieces = 0
    public var largestPieceSamples = 0
    /// How often the provider was paused because the buffer was full.
    public var backpressureWaits = 0
    public var playbackStarted = false
    /// Samples scheduled when playback started.
    public var samplesBeforePlayback = 0

    public init() {}

    mutating func didSchedule(_ count: Int) {
        scheduledSamples += count
        bufferedSamples += count
        scheduledPieces += 1
        maxBufferedSamples = max(maxBufferedSamples, bufferedSamples)
        largestPieceSamples = max(largestPieceSamples, count)
    }

    mutating func didPlay(_ count: Int) {
        playedSamples += count
        bufferedSamples -= count
    }

    private func seconds(_ samples: Int) -> Double { sinkFormat.map { $0.duration(ofSamples: samples) } ?? 0 }
    public var scheduledDuration: Double { seconds(scheduledSamples) }
    public var playedDuration: Double { seconds(playedSamples) }
    public var bufferedDuration: Double { seconds(bufferedSamples) }
}
