import ChorusModels
import Foundation
import ChorusStreaming
import ChorusTesting
@testable import ChorusCloud
import Testing

/// Ten minutes of 24 kHz audio from a server ten times faster than the sink plays it: the provider
/// must stop reading the socket while the pipeline's buffer is full, so the server is held back by
/// TCP flow control instead of the whole answer landing in memory.
///
/// The sink plays on `ScaledClock`, `sinkSpeed` times real time, so the ten minutes take seconds; the
/// server sends at ten times that. What is asserted is order and completeness of every sample and
/// how far the server got ahead of the sink (bounded by the pipeline's 3 s, one handoff piece, the
/// transports' small buffers and the kernel's socket buffers); nothing about time. The process's
/// RSS is printed for the report.
@Suite struct BackpressureTests {
    static let rate = 24_000
    static let samples = 10 * 60 * rate
    static let sinkSpeed = 100.0
    static let flood = Flood(samples: samples, samplesPerSecond: Double(rate) * sinkSpeed * 10)
    /// Without backpressure the server ran 11.1 to 11.6 million samples (77 %) ahead here; with it,
    /// 1.9 (ElevenLabs) and 3.7 million (OpenAI), nearly all of it the kernel's socket buffers.
    static let maximumLead = samples / 2

    @Test func openAIResponseBodyIsReadOnlyAsFastAsItPlays() async throws {
        try await withFakeOpenAI(flood: Self.flood) { baseURL, recorder in
            let provider = OpenAISpeechProvider(configuration: OpenAISpeechConfiguration(
                apiKey: APIKey(testKey), model: "fake-flood", baseURL: baseURL, timeoutSeconds: 600))
            try await check(provider, recorder, name: "OpenAI")
        }
    }

    @Test func elevenLabsFramesAreReadOnlyAsFastAsTheyPlay() async throws {
        try await withFakeElevenLabs(.flood(Self.flood)) { endpoint, recorder in
            let provider = ElevenLabsProvider(configuration: ElevenLabsConfiguration(
                apiKey: APIKey(testKey), voiceID: "voice-1", endpoint: endpoint))
            try await check(provider, recorder, name: "ElevenLabs")
        }
    }

    private func check(_ provider: any TTSProvider, _ recorder: Recorder, name: String) async throws {
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
            \(name) backpressure: \(Self.samples) samples (600 s) at \(Int(Self.sinkSpeed))x real time, server at \
            \(Int(Self.sinkSpeed * 10))x; server lead at most \(report.maxLead) samples \
            (\(report.maxLead * 2 / 1024) KiB, \(Double(report.maxLead) / Double(Self.rate)) s of audio); \
            pipeline buffer at most \(statistics.maxBufferedSamples) samples; \
            RSS \(report.rssKiB.min() ?? 0)-\(report.rssKiB.max() ?? 0) KiB over \(report.rssKiB.count) readings
            """)
    }
}
