import ChorusStreaming

extension StreamingTTSController {
    /// The samples `provider` plays for `pieces`, each yielded as text and then the text finished, through a
    /// `ClockedNullSink` on an `ImmediateClock`: a provider's test hears its whole stream without waiting.
    public static func samplesPlayed(by provider: any TTSProvider, for pieces: [String]) async throws -> [Float] {
        let sink = ClockedNullSink(clock: ImmediateClock(), keepsSamples: true)
        let controller = StreamingTTSController(provider: provider, sink: sink)
        try await controller.start()
        for piece in pieces { controller.yield(text: piece) }
        controller.finish()
        try await controller.waitUntilFinished()
        return sink.report.samples
    }
}
