import ChorusFiles
import ChorusModels
import ChorusAudio
import Foundation
@testable import ChorusStreaming
import ChorusTesting
import Testing

@Suite struct StreamingAudioPipelineTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func misalignedFloat32ChunksArePlayedBitExactly(seed: UInt64) async throws {
        let samples = ramp(24_000 * 2 + 17, seed: Int(seed)) + [1, -1, .leastNonzeroMagnitude, -0]
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock, keepsSamples: true)
        let pipeline = StreamingAudioPipeline(sink: sink)
        let pieces = split(float32Bytes(samples), seed: seed)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream(pieces), format: AudioFormat(sampleRate: 24_000, encoding: .float32))
            }
        }
        let played = sink.report.samples
        #expect(played.count == samples.count)
        #expect(played.map(\.bitPattern) == samples.map(\.bitPattern))
        #expect(await pipeline.statistics.discardedBytes == 0)
    }

    @Test func misalignedInt16StereoIsReassembledAndTheTrailingPartialFrameDropped() async throws {
        let values: [Int16] = (0..<(2 * 4_001)).map { Int16(truncatingIfNeeded: $0 &* 2_654_435_761) }
        // Three stray bytes of a frame that never completes.
        let bytes = int16Bytes(values) + Data([0x12, 0x34, 0x56])
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock, keepsSamples: true)
        let pipeline = StreamingAudioPipeline(sink: sink)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream(split(bytes, seed: 9, maximum: 7)),
                                        format: AudioFormat(sampleRate: 8_000, channels: 2, encoding: .int16))
            }
        }
        #expect(sink.report.samples == values.map { Float($0) / 32768 })
        #expect(await pipeline.statistics.discardedBytes == 3)
    }

    @Test func playbackStartsAtTheWatermark() async throws {
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock)
        let configuration = AudioPipelineConfiguration(playbackWatermark: 0.5, maxBufferedDuration: 3)
        let pipeline = StreamingAudioPipeline(sink: sink, configuration: configuration)
        let format = AudioFormat(sampleRate: 16_000, encoding: .float32)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream(split(float32Bytes(ramp(16_000 * 2)), seed: 4, maximum: 4_000)), format: format)
            }
        }
        let report = sink.report
        let statistics = await pipeline.statistics
        let watermark = 8_000
        #expect(report.samplesScheduledBeforePlay >= watermark)
        #expect(report.samplesScheduledBeforePlay < watermark + statistics.largestPieceSamples)
        #expect(statistics.samplesBeforePlayback == report.samplesScheduledBeforePlay)
        let firstPlayed = report.events.firstIndex { if case .played = $0 { true } else { false } }
        let playStarted = try #require(report.events.firstIndex(of: .playStarted))
        #expect(playStarted < (firstPlayed ?? .max))
        #expect(report.playedSamples == 32_000)
        #expect(report.events.last == .finished)
    }

    @Test func aResponseShorterThanTheWatermarkPlaysInFull() async throws {
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock, keepsSamples: true)
        let pipeline = StreamingAudioPipeline(sink: sink)
        let samples = ramp(3_200)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream([float32Bytes(samples)]), format: AudioFormat(sampleRate: 16_000, encoding: .float32))
            }
        }
        let report = sink.report
        #expect(report.samplesScheduledBeforePlay == samples.count)
        #expect(report.playedSamples == samples.count)
        #expect(report.samples == samples)
        #expect(report.events.last == .finished)
    }

    @Test func anEmptyStreamFinishesWithoutPlayingAnything() async throws {
        let sink = ClockedNullSink(clock: ManualClock())
        let pipeline = StreamingAudioPipeline(sink: sink)
        try await withDeadlockGuard {
            try await pipeline.play(byteStream([]), format: AudioFormat(sampleRate: 16_000, encoding: .int16))
        }
        #expect(sink.report.playedSamples == 0)
        #expect(sink.report.events.last == .finished)
    }

    @Test func backpressureBoundsTheBufferAndPausesTheProvider() async throws {
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock)
        let configuration = AudioPipelineConfiguration(playbackWatermark: 0.5, maxBufferedDuration: 3)
        let pipeline = StreamingAudioPipeline(sink: sink, configuration: configuration)
        let rate = 16_000
        let chunk = 4_000 // 0.25 s per provider chunk
        let total = rate * 20
        // Each pull records how far the provider has got ahead of playback.
        let aheadOfPlayback = Locked<[Int]>([])
        let pulled = Locked(0)
        let provider = AsyncStream<Data>(unfolding: {
            let sent = pulled.withLock { sent -> Int in
                defer { sent += chunk }
                return sent
            }
            guard sent < total else { return nil }
            aheadOfPlayback.withLock { $0.append(sent - sink.report.playedSamples) }
            return float32Bytes(ramp(chunk, seed: sent))
        })
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(provider, format: AudioFormat(sampleRate: rate, encoding: .float32))
            }
        }
        let statistics = await pipeline.statistics
        let limit = rate * 3
        #expect(statistics.backpressureWaits > 0)
        #expect(statistics.maxBufferedSamples <= limit + statistics.largestPieceSamples)
        #expect(sink.report.maxQueuedSamples <= limit + statistics.largestPieceSamples)
        #expect(sink.report.playedSamples == total)
        // The provider is never more than the buffer plus one chunk of its own ahead.
        #expect(aheadOfPlayback.withLock { $0.max() ?? 0 } <= limit + statistics.largestPieceSamples + chunk)
    }

    @Test func aLimitBelowTheWatermarkStartsPlaybackInsteadOfDeadlocking() async throws {
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock)
        let configuration = AudioPipelineConfiguration(playbackWatermark: 2, maxBufferedDuration: 0.5)
        let pipeline = StreamingAudioPipeline(sink: sink, configuration: configuration)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream([float32Bytes(ramp(16_000 * 3))]), format: AudioFormat(sampleRate: 16_000, encoding: .float32))
            }
        }
        #expect(sink.report.playedSamples == 48_000)
        #expect(await pipeline.statistics.maxBufferedSamples <= 8_000 + 1_600)
    }

    @Test func providerErrorsAreRethrownUnchangedAndTheSinkIsStopped() async throws {
        let sink = ClockedNullSink(clock: ManualClock())
        let pipeline = StreamingAudioPipeline(sink: sink)
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(float32Bytes(ramp(100)))
            continuation.finish(throwing: FakeError.boom)
        }
        await #expect(throws: FakeError.boom) {
            try await withDeadlockGuard {
                try await pipeline.play(failing, format: AudioFormat(sampleRate: 16_000, encoding: .float32))
            }
        }
        #expect(sink.report.events.last == .stopped)
    }

    @Test(arguments: [(24_000, 48_000, 1), (22_050, 44_100, 2), (24_000, 16_000, 1)])
    func audioIsResampledToTheSinkRateAsIfItCameAllAtOnce(from: Int, to: Int, channels: Int) async throws {
        let frames = from / 2 + 7
        let samples = ramp(frames * channels)
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock, sampleRate: to, keepsSamples: true)
        let pipeline = StreamingAudioPipeline(sink: sink)
        let format = AudioFormat(sampleRate: from, channels: channels, encoding: .float32)
        try await withDeadlockGuard {
            try await clock.advancing {
                try await pipeline.play(byteStream(split(float32Bytes(samples), seed: 11, maximum: 333)), format: format)
            }
        }
        // The streaming resampler is chunk-invariant, so each channel must equal the whole-buffer result.
        let played = sink.report.samples
        for channel in 0..<channels {
            let input = stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
            let expected = try Resampler.resample(input, from: from, to: to)
            let got = stride(from: channel, to: played.count, by: channels).map { played[$0] }
            #expect(got == expected)
        }
    }
}
