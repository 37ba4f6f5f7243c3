/// The stream of an engine that speaks a piece of text in one model call or a few (Kokoro, Piper): the
/// request is checked, its text cut into pieces, each piece into calls as they are needed, and the calls
/// run as the engine's `PieceParallelism` schedules them for the request's priority (`ParallelPieces`),
/// handed back as audio in the order of the text.
///
/// Nothing runs until the reader asks for the first chunk, and nothing runs more than the schedule's
/// window ahead of the reader, so a reader that stops reading stops the synthesis. Cancelling the reader
/// stops every call in flight before the stream ends. A text whose pieces give no call at all is
/// `SpeechError.nothingToSpeak`, never an empty success.
public enum PieceByPieceSpeech {
    /// The audio of `request` spoken by `engine`.
    /// - Parameters:
    ///   - pieces: the pieces `request`'s text is spoken in, for its priority.
    ///   - calls: a piece's model calls, in order (made when the calls are needed).
    ///   - severalCalls: readies what calls side by side need, once, when more than one call follows.
    ///   - speak: one model call for the request's voice, told whether it runs alone.
    ///   - audio: the chunk a finished call gives the reader.
    public static func stream<Call: Sendable>(
        _ request: SynthesisRequest, of engine: some SpeechSynthesizer, parallelism: PieceParallelism,
        pieces: @escaping (String, SynthesisRequest.Priority) -> [String],
        calls: @escaping (String) throws -> [Call],
        severalCalls: @escaping () -> Void = {},
        speak: @escaping @Sendable (_ call: Call, _ voice: Voice, _ alone: Bool) async throws -> [Float],
        audio: @escaping (ParallelPieces<Call, [Float]>.Piece) -> AudioChunk
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        let utterance = Utterance<Call> {
            try request.checkTextAndSpeed()
            let voice = try engine.voice(request.voice)
            return ParallelPieces<Call, [Float]>(
                parallelism: parallelism, priority: request.priority, pieces: pieces(request.text, request.priority),
                inputs: calls, severalCalls: severalCalls
            ) { call, alone in
                try await speak(call, voice, alone)
            }
        }
        return AsyncThrowingStream {
            guard let piece = try await utterance.next() else {
                if !utterance.spoke { throw SpeechError.nothingToSpeak(request.text) }
                return nil
            }
            return audio(piece)
        }
    }

    /// Where one stream is: its calls, lined up when the first chunk is asked for.
    ///
    /// `@unchecked Sendable` because `AsyncThrowingStream(unfolding:)` calls `next` from one consumer,
    /// one call at a time, so its state is never touched concurrently.
    final class Utterance<Call: Sendable>: @unchecked Sendable {
        private let start: () throws -> ParallelPieces<Call, [Float]>
        private var calls: ParallelPieces<Call, [Float]>?
        private(set) var spoke = false

        init(start: @escaping () throws -> ParallelPieces<Call, [Float]>) {
            self.start = start
        }

        func next() async throws -> ParallelPieces<Call, [Float]>.Piece? {
            let calls = try self.calls ?? start()
            self.calls = calls
            let piece = try await calls.next()
            if piece != nil { spoke = true }
            return piece
        }
    }
}
