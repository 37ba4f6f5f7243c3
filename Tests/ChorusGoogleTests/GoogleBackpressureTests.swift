import ChorusModels
import ChorusCloud
import ChorusStreaming
import ChorusTesting
import Foundation
@testable import ChorusGoogle
import Testing

/// Ten minutes of 24 kHz audio from a fake Google server ten times faster than the sink plays it,
/// as ChorusCloud's BackpressureTests do for OpenAI and ElevenLabs: the provider must stop taking
/// gRPC messages while the pipeline's buffer is full, so the server is held back by HTTP/2 flow
/// control instead of the whole answer landing in memory.
///
/// The sink plays on `ScaledClock`, `sinkSpeed` times real time; the server sends at ten times that.
/// What is asserted is order and completeness of every sample and how far the server got ahead of
/// the sink (the pipeline's 3 s, one handoff piece, the flow-control window, gRPC's and the kernel's
/// buffers); nothing about time. The process's RSS is printed for the report.
@Suite struct GoogleBackpressureTests {
    static let rate = 24_000
    static let samples = 10 * 60 * rate
    static let sinkSpeed = 100.0
    /// Measured here: with the provider's 256 KiB window the server ran 165,515 to 304,762 samples
    /// ahead; with gRPC's default 8 MiB window, 4,001,526 (7.8 MiB). The bound sits between them,
    /// so a window that grows back to the default fails this test.
    static let maximumLead = 1_500_000

    @Test func messagesAreTakenOnlyAsFastAsTheyPlay() async throws {
        let behaviour = Behaviour.flood(samples: Self.samples, samplesPerSecond: Double(Self.rate) * Self.sinkSpeed * 10)
        try await withFakeGoogle(behaviour) { endpoint, recorder in
            let provider = GoogleSpeechProvider(configuration: GoogleSpeechConfiguration(
                credentials: .apiKey(APIKey(testKey)), voiceName: "en-US-Chirp3-HD-Charon", endpoint: endpoint))
            let sink = FloodCheckingSink(speed: Self.sinkSpeed, sampleRate: Self.rate, sentSamples: { recorder.snapshot.sentAudioBytes / 2 })
            let controller = StreamingTTSController(provider: provider, sink: sink)
            try await controller.speak("Ten minutes, please.")
            let report = sink.result
            #expect(report.checkedSamples == Self.samples)
            #expect(report.firstMismatch == nil, "sample \(report.firstMismatch ?? 0) is not the one the server sent there")
            #expect(report.maxLead < Self.maximumLead, "the server ran \(report.maxLead) samples ahead of the sink")
            let statistics = await controller.statistics
            #expect(statistics.maxBufferedSamples <= Self.rate * 31 / 10)
            print("""
                Google backpressure: \(Self.samples) samples (600 s) at \(Int(Self.sinkSpeed))x real time, server at \
                \(Int(Self.sinkSpeed * 10))x; server lead at most \(report.maxLead) samples \
                (\(report.maxLead * 2 / 1024) KiB, \(Double(report.maxLead) / Double(Self.rate)) s of audio); \
                pipeline buffer at most \(statistics.maxBufferedSamples) samples; \
                RSS \(report.rssKiB.min() ?? 0)-\(report.rssKiB.max() ?? 0) KiB over \(report.rssKiB.count) readings
                """)
        }
    }
}
