import ChorusONNX
import ChorusSpeech
import ChorusText
import Foundation

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
    /// How long a first piece may be for its audio to come in time on this machine; nil: `ramp.firstLength`.
    public let firstPiece: FirstPiecePace?
    /// The quiet kept where the pieces of a stream meet; nil: the model's own, whole.
    public let seams: Seams?
    /// The output the waveform is in.
    public let audioOutput: String
    /// What to do when the model has no `audioOutput` (which model to use instead).
    private let remedy: String

    /// Loads the model at `modelPath` for `parallelism` (the machine's, `PieceParallelism.current()`, when nil):
    /// calls side by side get `parallelism.threadsPerRun` intra-op threads, a call alone `threadsAlone()`,
    /// unless `options` sets them. Its optimised graph is read from, or written to, `optimizedModels` (nil:
    /// optimised in every process). A model without `audioOutput` is refused with `remedy`, not read as silence.
    /// `firstPiece` paces the first piece of speech heard as it is made (nil: `ramp.firstLength` always), and
    /// `seams` trims the model's quiet where its pieces meet.
    public init(modelPath: String, options: SessionOptions, parallelism: PieceParallelism?,
                optimizedModels: OptimizedModelCache?, ramp: PieceRamp, firstPiece: FirstPiecePace? = nil,
                seams: Seams? = nil, audioOutput: String, remedy: String) throws {
        let parallelism = try parallelism ?? PieceParallelism.current()
        self.parallelism = parallelism
        sessions = try PieceSessions(
            modelPath: modelPath, options: options, inFlight: parallelism.inFlight,
            threadsPerRun: parallelism.threadsPerRun, threadsAlone: parallelism.threadsAlone(),
            allowsSpinning: parallelism.allowsSpinning, optimizedModels: optimizedModels)
        self.ramp = ramp
        self.firstPiece = firstPiece
        self.seams = seams
        self.audioOutput = audioOutput
        self.remedy = remedy
        guard sessions.alone.output(named: audioOutput) != nil else { throw noAudioOutput() }
    }

    /// Model calls made at once: `parallelism.inFlight`, the calls sharing the session's threads, or one
    /// call alone with all of them; more requests wait their turn here, suspended, rather than fight over
    /// the cores.
    public var runLimit: RunLimit { sessions.limit }

    /// The audio of `request` in `voice` (see `PieceByPieceSpeech`): the text in `ramp`'s pieces (the first paced
    /// by `firstPiece`), each piece read once by `frontEnd` before any model runs, the request refused when the
    /// readings cost more than its text may, then each piece's `calls` run as `parallelism` schedules them for the request's priority,
    /// the first alone (unless the whole text comes first), then up to `parallelism.inFlight` at once ahead of
    /// the reader. Cancelling the reader stops every call in progress before the stream ends, and nothing runs on.
    public func stream<Reading: Sendable, Call: Sendable>(
        _ request: SynthesisRequest, sampleRate: Int, voice: @escaping @Sendable () throws -> Voice,
        frontEnd: FrontEnd<Reading>,
        calls: @escaping (_ piece: String, _ reading: Reading) throws -> [Call],
        speak: @escaping @Sendable (_ call: Call, _ voice: Voice, _ alone: Bool, _ cuts: Cuts) async throws -> [Float],
        samples: @escaping (PieceByPieceSpeech.Made<Timed<Call>>) -> [Float] = { $0.output }
    ) -> AsyncThrowingStream<AudioChunk, Error> {
        var ramp = self.ramp
        if let firstPiece { ramp.firstLength = firstPiece.firstLength(longest: ramp.firstLength) }
        let readings = Readings<Reading>()
        var afterSentence = true
        return PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate, calls: .split(parallelism),
            setup: { [ramp] in
                let chosen = try voice()
                let (pieces, read) = try frontEnd.read(request, in: ramp.pieces(of: request))
                readings.keep(read, of: pieces)
                return (voice: chosen, pieces: pieces)
            },
            pieces: { $0.pieces },
            // `ParallelPieces` asks for the calls of one piece after another, in text order, so the piece
            // before this one is the last one asked for.
            calls: { piece in
                let made = try calls(piece, try readings.reading(of: piece) ?? frontEnd.read(piece))
                let continuesSentence = !afterSentence
                afterSentence = PieceRamp.endsSentence(piece)
                let characters = max(1, piece.count / max(1, made.count))
                return made.indices.map { index in
                    Timed(call: made[index], characters: characters,
                          cuts: Cuts(atStart: index == 0 && continuesSentence,
                                     atEnd: index == made.count - 1 && !afterSentence))
                }
            },
            // Calls after the first will run side by side: their session is made meanwhile.
            severalCalls: sessions.prepareShared,
            speak: { [firstPiece] timed, setup, alone, _ in
                try await Self.$timing.withValue(firstPiece.map { ($0, timed.characters) }) {
                    try await speak(timed.call, setup.voice, alone, timed.cuts)
                }
            }, samples: { [seams] made in
                guard let seams else { return samples(made) }
                var made = made
                let cuts = made.input.input.cuts
                func count(_ seconds: Double) -> Int { Int(seconds * Double(sampleRate)) }
                made.output = Self.trimmingSilence(
                    of: made.output, leading: cuts.atStart ? count(seams.withinSentence) : nil,
                    trailing: cuts.atEnd && !made.isLast ? count(seams.withinSentence) : nil)
                return samples(made)
            })
    }

    /// The quiet kept on either side of a cut inside a sentence, in seconds, where a model ends and starts each
    /// call as it would a whole utterance (Kokoro: 0.28 s before "The lamp turned" and 0.71 s after it,
    /// jf_alpha), which in mid-sentence sounds like a pause for breath: the 3-sentence text of
    /// bench/stream_first_byte.py cut into short pieces lasted 41% longer than when made whole. Between
    /// sentences the model's own pause stays (cut to 0.3 s, the 8-sentence text left the listener waiting up
    /// to 1.2 s for the next piece on 2 cores).
    public struct Seams: Sendable {
        public var withinSentence: Double

        public init(withinSentence: Double) {
            self.withinSentence = withinSentence
        }
    }

    /// `samples` with the quiet before the first (`leading`) or after the last (`trailing`) sample louder
    /// than -40 dBFS cut down to that many samples, the cut faded over at most 120 samples (5 ms at 24 kHz);
    /// nil keeps that end.
    static func trimmingSilence(of samples: [Float], leading: Int?, trailing: Int?) -> [Float] {
        guard leading != nil || trailing != nil,
              let first = samples.firstIndex(where: { abs($0) > 0.01 }),
              let last = samples.lastIndex(where: { abs($0) > 0.01 }) else { return samples }
        let start = leading.map { max(0, first - $0) } ?? 0
        let end = trailing.map { min(samples.count, last + 1 + $0) } ?? samples.count
        var kept = Array(samples[start..<end])
        // The fades lie in the quiet kept, never on the sound.
        if start > 0 {
            let fade = min(first - start, 120)
            for index in 0..<fade { kept[index] *= Float(index) / Float(fade) }
        }
        if end < samples.count {
            let fade = min(end - 1 - last, 120)
            for index in 0..<fade { kept[kept.count - 1 - index] *= Float(index) / Float(fade) }
        }
        return kept
    }

    /// How an engine's front end reads a piece of text before the model is called on it (Kokoro's and Piper's
    /// espeak-ng phonemes), and what a reading costs, in `unit`s (see `SynthesisRequest.checkCost`).
    public struct FrontEnd<Reading: Sendable>: Sendable {
        public var read: @Sendable (_ piece: String) throws -> Reading
        public var cost: @Sendable (Reading) -> Int
        public var unit: String

        public init(unit: String, read: @escaping @Sendable (_ piece: String) throws -> Reading,
                    cost: @escaping @Sendable (Reading) -> Int) {
            self.read = read
            self.cost = cost
            self.unit = unit
        }

        /// `pieces` of `request`'s text, each read once, refused together when they cost more than the text
        /// may: before any model runs.
        public func read(_ request: SynthesisRequest, in pieces: [String]) throws -> (pieces: [String], readings: [Reading]) {
            let readings = try pieces.map(read)
            try request.checkCost(units: readings.reduce(0) { $0 + cost($1) }, unit: unit)
            return (pieces, readings)
        }
    }

    /// Where a call's text was cut inside a sentence, so that its audio meets the audio of the call before
    /// it (`atStart`) or after it (`atEnd`) mid-sentence, where `seams` trims the quiet and where a model may
    /// make less of it (Kokoro's pad tokens: `KokoroSynthesizer`).
    public struct Cuts: Sendable, Equatable {
        public var atStart: Bool
        public var atEnd: Bool

        public init(atStart: Bool, atEnd: Bool) {
            self.atStart = atStart
            self.atEnd = atEnd
        }
    }

    /// One model call, and the characters of text it speaks (its piece's share).
    public struct Timed<Call: Sendable>: Sendable {
        public var call: Call
        public var characters: Int
        /// Where the call's text was cut inside a sentence: at its start, a piece going on with the sentence the
        /// piece before it began; at its end, a piece cut inside a sentence, which the next piece goes on with.
        public var cuts = Cuts(atStart: false, atEnd: false)
    }

    /// Where the calls of a stream report their time: the pace and the characters of the call being made.
    @TaskLocal static var timing: (pace: FirstPiecePace, characters: Int)?

    /// One model call: the waveform `feeds` give, on the session for a call alone when `alone`.
    public func audio(_ feeds: [String: Tensor], alone: Bool) async throws -> [Float] {
        var ran: (@Sendable (Double, Bool) -> Void)?
        if let (pace, characters) = Self.timing {
            ran = { seconds, ranAlone in
                if ranAlone { pace.record(characters: characters, seconds: seconds) }
            }
        }
        let outputs = try await sessions.run(feeds, outputs: [audioOutput], alone: alone, ran: ran)
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

/// The front end's reading of each piece of one stream, made in its set-up and taken by its calls.
private final class Readings<Reading: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var byPiece: [String: Reading] = [:]

    func keep(_ readings: [Reading], of pieces: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for (piece, reading) in zip(pieces, readings) { byPiece[piece] = reading }
    }

    /// The reading of `piece`, given up once taken; nil when it was not kept.
    func reading(of piece: String) -> Reading? {
        lock.lock()
        defer { lock.unlock() }
        return byPiece.removeValue(forKey: piece)
    }
}
