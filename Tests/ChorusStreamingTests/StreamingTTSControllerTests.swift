import ChorusFiles
import ChorusModels
import Foundation
@testable import ChorusStreaming
import ChorusTesting
import Testing

@Suite struct StreamingTTSControllerTests {
    private let format = AudioFormat(sampleRate: 16_000, encoding: .float32)

    @Test func speakPlaysEverySentenceInOrder() async throws {
        let synthesizer = FakeSynthesizer()
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock, keepsSamples: true)
        let controller = StreamingTTSController(provider: SynthesizerProvider(synthesizer: synthesizer), sink: sink)
        try await withDeadlockGuard {
            try await clock.advancing { try await controller.speak("One. Two two! Three?") }
        }
        #expect(synthesizer.requests == ["One.", "Two two!", "Three?"])
        let expected = synthesizer.requests.flatMap(FakeSynthesizer.samples(for:))
        #expect(sink.report.samples == expected)
        var statuses: [PlaybackStatus] = []
        for await status in controller.status { statuses.append(status) }
        #expect(statuses == [.finished(played: Double(expected.count) / 16_000)])
    }

    @Test func aWriterFasterThanSpeechWaitsInsteadOfQueueingText() async throws {
        let synthesizer = FakeSynthesizer()
        let clock = ManualClock()
        let controller = StreamingTTSController(provider: SynthesizerProvider(synthesizer: synthesizer),
                                                sink: ClockedNullSink(clock: clock))
        try await controller.start()
        let piece = String(repeating: "Words and more words. ", count: 20)  // 440 bytes, 20 sentences
        let limit = 2_048
        let largestBacklog = Locked(0)
        let writer = Thread {
            for _ in 0..<100 {
                controller.yield(text: piece)
                largestBacklog.withLock { $0 = max($0, controller.pendingTextBytes) }
                controller.waitForRoom(upTo: limit)
            }
            controller.finish()
        }
        writer.start()
        try await withDeadlockGuard {
            try await clock.advancing { try await controller.waitUntilFinished() }
        }
        #expect(synthesizer.requests.count == 2_000)
        // 44 KB were written; never more than the limit and one piece waited.
        #expect(largestBacklog.withLock { $0 } <= limit + piece.utf8.count)
        #expect(controller.pendingTextBytes == 0)
    }

    @Test func textYieldedPieceByPieceIsSpokenAsItArrives() async throws {
        let synthesizer = FakeSynthesizer()
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock)
        let controller = StreamingTTSController(provider: SynthesizerProvider(synthesizer: synthesizer), sink: sink)
        try await controller.start()
        controller.yield(text: "The first sen")
        controller.yield(text: "tence is here. The sec")
        // The first sentence is synthesised before the rest of the text exists.
        try await eventually { synthesizer.requests == ["The first sentence is here."] }
        controller.yield(text: "ond one.")
        controller.finish()
        try await withDeadlockGuard {
            try await clock.advancing { try await controller.waitUntilFinished() }
        }
        #expect(synthesizer.requests == ["The first sentence is here.", "The second one."])
    }

    @Test func startingTwiceThrowsAlreadyStarted() async throws {
        let controller = StreamingTTSController(
            provider: ScriptedProvider(outputFormat: format, chunks: []), sink: ClockedNullSink(clock: ManualClock()))
        try await controller.start()
        await #expect(throws: StreamingError.alreadyStarted) { try await controller.start() }
        await controller.cancel()
    }

    @Test func startingAfterCancelThrowsAlreadyCancelled() async throws {
        let sink = ClockedNullSink(clock: ManualClock())
        let controller = StreamingTTSController(provider: ScriptedProvider(outputFormat: format, chunks: []), sink: sink)
        await controller.cancel()
        await #expect(throws: StreamingError.alreadyCancelled) { try await controller.start() }
        await #expect(throws: CancellationError.self) { try await controller.waitUntilFinished() }
        #expect(sink.report.events.isEmpty)
    }

    @Test func waitingBeforeStartThrowsNotStarted() async throws {
        let controller = StreamingTTSController(
            provider: ScriptedProvider(outputFormat: format, chunks: []), sink: ClockedNullSink(clock: ManualClock()))
        await #expect(throws: StreamingError.notStarted) { try await controller.waitUntilFinished() }
    }

    @Test func providerErrorsReachTheCaller() async throws {
        let provider = ScriptedProvider(outputFormat: format, chunks: Array(repeating: float32Bytes(ramp(800)), count: 5), failAfter: 3)
        let sink = ClockedNullSink(clock: ManualClock())
        let controller = StreamingTTSController(provider: provider, sink: sink)
        try await controller.start()
        controller.finish()
        await #expect(throws: FakeError.boom) {
            try await withDeadlockGuard { try await controller.waitUntilFinished() }
        }
        #expect(sink.report.events.last == .stopped)
        var last: PlaybackStatus?
        for await status in controller.status { last = status }
        #expect(last == .failed(String(describing: FakeError.boom)))
    }

    @Test func synthesizerErrorsReachTheCaller() async throws {
        var synthesizer = FakeSynthesizer()
        synthesizer.failingText = "Broken."
        let clock = ManualClock()
        let controller = StreamingTTSController(
            provider: SynthesizerProvider(synthesizer: synthesizer), sink: ClockedNullSink(clock: clock))
        await #expect(throws: FakeError.boom) {
            try await withDeadlockGuard {
                try await clock.advancing { try await controller.speak("Fine. Broken. Never said.") }
            }
        }
        #expect(synthesizer.requests == ["Fine.", "Broken."])
    }

    @Test func cancelMidStreamReleasesEverything() async throws {
        // Ten seconds of audio on a clock that never moves: the pipeline fills its buffer and waits.
        let provider = ScriptedProvider(outputFormat: format, chunks: Array(repeating: float32Bytes(ramp(1_600)), count: 100))
        let sink = ClockedNullSink(clock: ManualClock())
        let controller = StreamingTTSController(provider: provider, sink: sink)
        try await controller.start()
        controller.finish()
        try await eventually { sink.report.scheduledSamples >= 3 * 16_000 }
        try await withDeadlockGuard { await controller.cancel() }
        #expect(sink.report.events.last == .stopped)
        #expect(sink.report.playedSamples == 0)
        #expect(provider.terminated)
        try await eventually { provider.producerEnded }
        await #expect(throws: CancellationError.self) { try await controller.waitUntilFinished() }
        await #expect(throws: StreamingError.alreadyCancelled) { try await controller.start() }
        var last: PlaybackStatus?
        for await status in controller.status { last = status }
        #expect(last == .cancelled)
    }

    @Test func cancellingTheWaitingTaskCancelsTheStream() async throws {
        let provider = ScriptedProvider(outputFormat: format, chunks: Array(repeating: float32Bytes(ramp(1_600)), count: 100))
        let sink = ClockedNullSink(clock: ManualClock())
        let controller = StreamingTTSController(provider: provider, sink: sink)
        let speaking = Task { try await controller.speak("anything") }
        try await eventually { sink.report.scheduledSamples >= 3 * 16_000 }
        speaking.cancel()
        await #expect(throws: CancellationError.self) { try await withDeadlockGuard { try await speaking.value } }
        #expect(sink.report.events.last == .stopped)
    }
}
