import ChorusONNX
import ChorusSpeech
import ChorusText

/// One ONNX model that an engine calls once or a few times for each piece of a text and that gives the
/// piece's waveform (Kokoro, Piper): the text cut by `ramp`, the calls split over the cores as `parallelism`
/// says, each run alone or beside the others on `sessions`, the audio read from one named output.
public final class PieceModel: Sendable {
    /// How the cores are shared between the pieces of a text (`CHORUS_PIECES` overrides it).
    public let parallelism: PieceParallelism
    /// The model, loaded for a call alone and for calls side by side (see `PieceSessions`).
    public let sessions: PieceSessions
    /// How a text is cut: whole sentences packed up to `ramp.maxLength`, or growing pieces when it is heard
    /// as it is made.
    public let ramp: PieceRamp
    /// The output the waveform is in.
    public let audioOutput: String
    /// What to do when the model has no `audioOutput` (which model to use instead).
    private let remedy: String

    /// Loads the model at `modelPath` for `parallelism` (the machine's, `PieceParallelism.current()`, when nil):
    /// calls side by side get `parallelism.threadsPerRun` intra-op threads, a call alone `threadsAlone()`,
    /// unless `options` sets them. Its optimised graph is read from, or written to, `optimizedModels` (nil:
    /// optimised in every process). A model without `audioOutput` is refused with `remedy`, not read as silence.
    public init(modelPath: String, options: SessionOptions, parallelism: PieceParallelism?,
                optimizedModels: OptimizedModelCache?, ramp: PieceRamp, audioOutput: String, remedy: String) throws {
        let parallelism = try parallelism ?? PieceParallelism.current()
        self.parallelism = parallelism
        sessions = try PieceSessions(
            modelPath: modelPath, options: options, inFlight: parallelism.inFlight,
            threadsPerRun: parallelism.threadsPerRun, threadsAlone: parallelism.threadsAlone(),
            allowsSpinning: parallelism.allowsSpinning, optimizedModels: optimizedModels)
        self.ramp = ramp
        self.audioOutput = audioOutput
        self.remedy = remedy
        guard sessions.alone.output(named: audioOutput) != nil else { throw noAudioOutput() }
    }

    /// Model calls made at once: `parallelism.inFlight`, the calls sharing the session's threads, or one
    /// call alone with all of them; more requests wait their turn here, suspended, rather than fight over
    /// the cores.
    public var runLimit: RunLimit { sessions.limit }

    /// The audio of `request` in `voice` (see `PieceByPieceSpeech`): the text in `ramp`'s pieces, each
    /// piece's `calls` run as `parallelism` schedules them for the request's priority, the first alone
    /// (unless the whole text comes first), then up to `parallelism.inFlight` at once ahead of the reader.
    /// Cancelling the reader stops every call in progress before the stream ends, and nothing runs on.
    public func stream<Call: Sendable>(
        _ request: SynthesisRequest, sampleRate: Int, voice: @escaping @Sendable () throws -> Voice,
        calls: @escaping (_ piece: String) throws -> [Call],
        speak: @escaping @Sendable (_ call: Call, _ voice: Voice, _ alone: Bool) async throws -> [Float],
        samples: @escaping (PieceByPieceSpeech.Made<Call>) -> [Float] = { $0.output }
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate, calls: .split(parallelism), setup: voice,
            pieces: { [ramp] _ in ramp.pieces(of: request) }, calls: calls,
            // Calls after the first will run side by side: their session is made meanwhile.
            severalCalls: sessions.prepareShared,
            speak: { call, voice, alone, _ in try await speak(call, voice, alone) }, samples: samples)
    }

    /// One model call: the waveform `feeds` give, on the session for a call alone when `alone`.
    public func audio(_ feeds: [String: Tensor], alone: Bool) async throws -> [Float] {
        let outputs = try await sessions.run(feeds, outputs: [audioOutput], alone: alone)
        guard let audio = outputs[audioOutput] else { throw noAudioOutput() }
        return try audio.floats()
    }

    private func noAudioOutput() -> SpeechError {
        .missingModelOutput(path: sessions.alone.modelPath, output: audioOutput,
                            outputs: sessions.alone.outputs.map(\.name), remedy: remedy)
    }
}

extension PieceRamp {
    /// The pieces an engine cutting text with this ramp speaks `request`'s text in: the ramp's when the first
    /// audio comes first, else whole sentences (see `pieces(of:heardAsMade:)`).
    public func pieces(of request: SynthesisRequest) -> [String] {
        pieces(of: request.text, heardAsMade: request.priority == .firstAudio)
    }

    /// The machine's split (`PieceParallelism.current()`) for an engine cutting text with this ramp that
    /// serves `request` and no other (see `PieceParallelism.forOnly(_:pieces:)`).
    public func parallelism(servingOnly request: SynthesisRequest) throws -> PieceParallelism {
        try PieceParallelism.current().forOnly(request, pieces: pieces(of: request).count)
    }
}
