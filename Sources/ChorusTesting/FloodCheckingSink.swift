import ChorusFiles
import ChorusStreaming
import Foundation

/// Plays on a `ClockedNullSink` over a `ScaledClock` and checks every sample against `FloodVoice` as it
/// is scheduled, noting how far the sender had got ahead and the process's resident memory once a
/// second of audio: what a backpressure test of a streaming provider asserts (order and completeness,
/// a bounded lead; nothing about time).
public final class FloodCheckingSink: AudioSink {
    /// What the sink saw.
    public struct Result: Sendable {
        /// Samples checked so far.
        public var checkedSamples = 0
        /// The first sample that is not the flood's, if any.
        public var firstMismatch: Int?
        /// The most samples the sender had sent beyond those played.
        public var maxLead = 0
        /// Resident memory in KiB, read once a second of audio (empty where /proc is missing).
        public var rssKiB: [Int] = []
    }

    public let name = "flood checking sink"
    private let inner: ClockedNullSink<ScaledClock>
    private let sampleRate: Int
    private let sentSamples: @Sendable () -> Int
    private let state = Locked(Result())

    /// Plays at `speed` times real time; `sentSamples` says how many samples the sender has sent so far.
    public init(speed: Double, sampleRate: Int, sentSamples: @escaping @Sendable () -> Int) {
        inner = ClockedNullSink(clock: ScaledClock(speed: speed))
        self.sampleRate = sampleRate
        self.sentSamples = sentSamples
    }

    /// What the sink saw so far.
    public var result: Result { state.withLock { $0 } }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        try await inner.open(for: source, configuration: configuration)
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        let sent = sentSamples()
        state.withLock { result in
            for (offset, sample) in samples.enumerated() where result.firstMismatch == nil {
                let index = result.checkedSamples + offset
                if sample != Float(FloodVoice.sample(index)) / 32768 { result.firstMismatch = index }
            }
            let before = result.checkedSamples
            result.checkedSamples += samples.count
            result.maxLead = max(result.maxLead, sent - result.checkedSamples)
            if before / sampleRate != result.checkedSamples / sampleRate, let rss = ResidentMemory.bytes().map({ $0 / 1024 }) {
                result.rssKiB.append(rss)
            }
        }
        try await inner.schedule(samples, onPlayed: onPlayed)
    }

    public func play() async throws { try await inner.play() }
    public func finish() async throws { try await inner.finish() }
    public func stop() async { await inner.stop() }
}
