/// The stream every engine's `stream(_:)` returns: the request is checked, what the engine needs for it readied
/// (its voice, its models), its text cut into pieces, each piece into model calls as they are needed, and the
/// calls run as `Calls` says, their audio handed back in the order of the text.
///
/// A call hands back its audio when it ends, or chunk by chunk before (`early`, for an engine that streams
/// within a piece, such as CosyVoice and NeuTTS): the reader gets those chunks as they come when the call is the
/// one it waits for. Nothing runs until the reader asks for the first chunk, and no call starts more than the
/// schedule's window ahead of the reader, so a reader that stops reading stops the synthesis. Cancelling the
/// reader stops every call in flight before the stream ends. A text whose pieces give no call at all is
/// `SpeechError.nothingToSpeak`, never an empty success. Chunks without samples are not handed on.
public enum PieceByPieceSpeech {
    /// How the model calls of a request run.
    public enum Calls: Sendable {
        /// As the engine's split schedules them for the request's priority (`PieceParallelism.schedule(for:)`):
        /// engines whose calls share a session's threads (Kokoro, Piper).
        case split(PieceParallelism)
        /// One after another, each started when the one before it ends, at most one ahead of the reader, each
        /// alone: engines whose every call takes all the cores (Chatterbox, CosyVoice, NeuTTS).
        case oneAfterAnother
    }

    /// One model call: the piece of text it speaks, and the engine's input for it.
    public struct Call<Input: Sendable>: Sendable {
        public var piece: String
        public var input: Input
    }

    /// What a call made: its call, its samples, whether another call follows, whether it came before the
    /// call's end.
    public typealias Made<Input: Sendable> = ParallelPieces<Call<Input>, [Float]>.Piece

    /// The audio of `request`, at `sampleRate`.
    /// - Parameters:
    ///   - speeds: the speeds the engine speaks at.
    ///   - setup: what every call of the request needs (its voice, the loaded models), made once, when the
    ///     reader asks for the first chunk.
    ///   - pieces: the pieces the text is spoken in.
    ///   - calls: a piece's model inputs, in order (made when the calls are needed).
    ///   - severalCalls: readies what calls side by side need, once, when more than one call follows.
    ///   - speak: one model call, told whether it runs alone; it returns its samples, or the last of them
    ///     after handing the others to `early` as they are made.
    ///   - samples: the samples the reader gets for what a call made (its own by default).
    public static func stream<Setup: Sendable, Input: Sendable>(
        _ request: SynthesisRequest, sampleRate: Int, calls schedule: Calls,
        speeds: ClosedRange<Float> = SynthesisRequest.speeds,
        setup: @escaping @Sendable () async throws -> Setup,
        pieces: @escaping (Setup) throws -> [String],
        calls: @escaping (_ piece: String) throws -> [Input],
        severalCalls: @escaping () -> Void = {},
        speak: @escaping @Sendable (_ input: Input, _ setup: Setup, _ alone: Bool,
                                    _ early: @escaping @Sendable ([Float]) -> Void) async throws -> [Float],
        samples: @escaping (Made<Input>) -> [Float] = { $0.output }
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        let utterance = Utterance<Input>(sampleRate: sampleRate, samples: samples) {
            try request.checkTextAndSpeed(speeds: speeds)
            let ready = try await setup()
            let texts = try pieces(ready)
            let (order, ahead): (PieceParallelism.Schedule, Int) = switch schedule {
            case .split(let parallelism): (parallelism.schedule(for: request.priority), parallelism.callsAhead)
            case .oneAfterAnother: (.oneAfterAnother, 1)
            }
            return ParallelPieces<Call<Input>, [Float]>(
                schedule: order, callsAhead: ahead, pieces: texts,
                inputs: { piece in try calls(piece).map { Call(piece: piece, input: $0) } }, severalCalls: severalCalls
            ) { call, alone, early in
                try await speak(call.input, ready, alone, early)
            }
        }
        return AsyncThrowingStream {
            guard let chunk = try await utterance.next() else {
                if !utterance.spoke { throw SpeechError.nothingToSpeak(request.text) }
                return nil
            }
            return chunk
        }
    }

    /// The audio of `request` spoken one model call per piece, one after another (`Calls.oneAfterAnother`).
    public static func stream<Setup: Sendable>(
        _ request: SynthesisRequest, sampleRate: Int, speeds: ClosedRange<Float> = SynthesisRequest.speeds,
        setup: @escaping @Sendable () async throws -> Setup,
        pieces: @escaping (Setup) throws -> [String],
        speak: @escaping @Sendable (_ piece: String, _ setup: Setup,
                                    _ early: @escaping @Sendable ([Float]) -> Void) async throws -> [Float]
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        stream(request, sampleRate: sampleRate, calls: .oneAfterAnother, speeds: speeds, setup: setup, pieces: pieces,
               calls: { [$0] }) { piece, setup, _, early in
            try await speak(piece, setup, early)
        }
    }

    /// Where one stream is: its calls, lined up when the first chunk is asked for.
    ///
    /// `@unchecked Sendable` because `AsyncThrowingStream(unfolding:)` calls `next` from one consumer,
    /// one call at a time, so its state is never touched concurrently.
    final class Utterance<Input: Sendable>: @unchecked Sendable {
        private let start: () async throws -> ParallelPieces<Call<Input>, [Float]>
        private let sampleRate: Int
        private let samples: (Made<Input>) -> [Float]
        private var calls: ParallelPieces<Call<Input>, [Float]>?
        private(set) var spoke = false

        init(sampleRate: Int, samples: @escaping (Made<Input>) -> [Float],
             start: @escaping () async throws -> ParallelPieces<Call<Input>, [Float]>) {
            self.sampleRate = sampleRate
            self.samples = samples
            self.start = start
        }

        /// The next chunk with samples, nil when the calls are done.
        func next() async throws -> AudioChunk? {
            if self.calls == nil { self.calls = try await start() }
            guard let calls else { return nil }
            while let made = try await calls.next() {
                spoke = true
                let audio = samples(made)
                if !audio.isEmpty { return AudioChunk(samples: audio, sampleRate: sampleRate, text: made.input.piece) }
            }
            return nil
        }
    }
}
