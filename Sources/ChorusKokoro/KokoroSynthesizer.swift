import ChorusModels
import Foundation
import ChorusONNX
import ChorusPhonemizer
import ChorusSpeech
import ChorusText

/// Kokoro-82M text to speech: espeak-ng phonemes, a style vector per voice, 24 kHz audio.
public final class KokoroSynthesizer: SpeechSynthesizer {
    public let engineName = "kokoro"
    public let sampleRate = 24_000
    public let voices: [Voice]
    /// The espeak-ng voice that phonemizes the text (the language spoken), "en-us" by default.
    public let espeakVoice: String

    /// How the cores are shared between the pieces of a text (`CHORUS_PIECES` overrides it).
    public let parallelism: PieceParallelism
    /// Model calls of this engine made at once: `parallelism.inFlight`, the calls sharing the session's
    /// threads, or one call alone with all of them; more requests wait their turn here, suspended,
    /// rather than fight over the cores.
    public var runLimit: RunLimit { sessions.limit }
    public var piecesInFlight: Int { parallelism.inFlight }

    /// The model, loaded for a call alone and for calls side by side (see `PieceSessions`).
    let sessions: PieceSessions
    private var session: InferenceSession { sessions.alone }
    private let vocabulary: KokoroVocabulary
    private let voicePack: KokoroVoicePack
    private let frontEnd: KokoroPhonemizer

    /// Text is phonemized and spoken in pieces of at most this many characters.
    static let pieceLength = 300
    /// The pieces of speech heard as it is made (see `PieceRamp`): the first sentence, or its first
    /// clauses up to 60 characters when it is longer, then pieces each at most as long as all the text
    /// before them, which keeps every piece in time while a second of speech takes at most half a second
    /// to make (Kokoro alone on 2 cores took 0.3-0.4 s per second of speech: StreamingBench, README).
    static let streamingPieces = PieceRamp(firstLength: 60, growth: 1, maxLength: pieceLength)

    /// The session options the model loads with unless told otherwise: the runtime's defaults without
    /// the memory pattern, which is planned per input shape; every piece of text has its own length,
    /// so the arena kept growing with blocks planned for earlier pieces (see `PiperSynthesizer`).
    public static let defaultSessionOptions = SessionOptions(usesMemoryPattern: false)

    /// The output Kokoro's ONNX export puts the waveform in; a model without it is refused, not read as silence.
    static let audioOutput = "audio"

    static func noAudioOutput(in session: InferenceSession) -> SpeechError {
        .missingModelOutput(path: session.modelPath, output: audioOutput, outputs: session.outputs.map(\.name),
                            remedy: "It is not a Kokoro v1.0 ONNX export; use the model `scripts/setup.sh` installs.")
    }

    /// The files of a Kokoro model folder.
    public struct Files: Sendable {
        public var model: URL
        public var vocabulary: URL
        public var voices: URL

        /// The layout `scripts/setup.sh` installs: `kokoro-v1.0.int8.onnx`, `vocab.json`, `voices_ja.npz`.
        public init(folder: URL) {
            model = folder.appendingPathComponent("kokoro-v1.0.int8.onnx")
            vocabulary = folder.appendingPathComponent("vocab.json")
            voices = folder.appendingPathComponent("voices_ja.npz")
        }

        /// Throws naming the first file that is not there.
        func checkPresent() throws {
            for file in [model, vocabulary, voices] where !FileManager.default.fileExists(atPath: file.path) {
                throw KokoroSynthesizer.manifest.missing(file.path)
            }
        }
    }

    /// Loads a Kokoro model; `espeakVoice` picks the language the text is read in. Calls side by
    /// side get `parallelism.threadsPerRun` intra-op threads, a call alone `threadsAlone()`, unless
    /// `options` sets them. The model's
    /// optimised graph is read from, or written to, `optimizedModels` (nil: optimised in every process).
    public init(files: Files = Files(folder: ModelStore.current.folder(for: manifest)), espeakVoice: String = "en-us",
                options: SessionOptions = KokoroSynthesizer.defaultSessionOptions, parallelism: PieceParallelism? = nil,
                optimizedModels: OptimizedModelCache? = OptimizedModelCache.current()) throws {
        try files.checkPresent()
        let parallelism = try parallelism ?? PieceParallelism.current()
        self.parallelism = parallelism
        vocabulary = try KokoroVocabulary(contentsOf: files.vocabulary)
        voicePack = try KokoroVoicePack(contentsOf: files.voices)
        sessions = try PieceSessions(
            modelPath: files.model.path, options: options, inFlight: parallelism.inFlight,
            threadsPerRun: parallelism.threadsPerRun, threadsAlone: parallelism.threadsAlone(),
            allowsSpinning: parallelism.allowsSpinning, optimizedModels: optimizedModels)
        guard sessions.alone.output(named: Self.audioOutput) != nil else { throw Self.noAudioOutput(in: sessions.alone) }
        frontEnd = KokoroPhonemizer(espeakVoice: espeakVoice, phonemizer: try EspeakPhonemizer.shared())
        self.espeakVoice = espeakVoice
        voices = voicePack.names.map(Self.describe)
    }

    /// The voices of the model in `files`, read from its voice pack's directory without loading the model.
    public static func installedVoices(files: Files = Files(folder: ModelStore.current.folder(for: manifest))) throws -> [Voice] {
        try files.checkPresent()
        return try KokoroVoicePack(contentsOf: files.voices).names.map(describe)
    }

    /// Kokoro voice names start with a language letter and a gender letter (e.g. "jf_alpha": Japanese, female).
    static func describe(_ name: String) -> Voice {
        let letters = Array(name.prefix(2))
        let languages: [Character: String] = [
            "a": "en-US", "b": "en-GB", "j": "ja", "z": "zh", "e": "es", "f": "fr", "h": "hi", "i": "it", "p": "pt-BR",
        ]
        let language = letters.first.flatMap { languages[$0] } ?? "und"
        let gender: Voice.Gender = letters.count > 1 ? (letters[1] == "f" ? .female : letters[1] == "m" ? .male : .unknown) : .unknown
        return Voice(id: name, engine: "kokoro", language: language, gender: gender,
                     summary: "Kokoro-82M voice trained on \(language); reads text in the phonemizer's language")
    }

    /// The audio of `request`, one model call per chunk, in order. The first call runs alone, with all the
    /// engine's threads (unless the request's priority is the whole text); then up to
    /// `parallelism.inFlight` calls run at once ahead of the consumer (see `ParallelPieces`).
    /// Cancelling the consumer stops every call in progress before the stream ends, and nothing runs on.
    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate, calls: .split(parallelism), setup: { [self] in try voice(request.voice) },
            pieces: { _ in Self.pieces(of: request.text, priority: request.priority) },
            calls: { [self] piece in try modelInputs(forPiece: piece) },
            // Calls after the first will run side by side: their session is made meanwhile.
            severalCalls: sessions.prepareShared,
            speak: { [self] ids, voice, alone, _ in try await speak(ids: ids, voice: voice.id, speed: request.speed, alone: alone) })
    }

    /// The phoneme id sequences the model is run on for `text`, in order, each within the 510-id
    /// limit and before the `[0] ... [0]` framing; for checking what the model is fed.
    public func modelInputs(for text: String) throws -> [[Int64]] {
        try Self.pieces(of: text).flatMap(modelInputs(forPiece:))
    }

    /// The pieces of text `text` is spoken in: for the whole text, sentences packed up to `pieceLength`
    /// characters; for the first audio, `streamingPieces`' ramp, so the first piece is the first
    /// sentence (or its first clauses) and every later one is ready before the audio before it has played.
    static func pieces(of text: String, priority: SynthesisRequest.Priority = .wholeText) -> [String] {
        streamingPieces.pieces(of: text, heardAsMade: priority == .firstAudio)
    }

    /// The machine's split (`PieceParallelism.current()`) for an engine that serves `request` and no other.
    public static func parallelism(servingOnly request: SynthesisRequest) throws -> PieceParallelism {
        try PieceParallelism.current().forOnly(request, pieces: pieces(of: request.text, priority: request.priority).count)
    }

    /// The id sequences for one piece of text.
    func modelInputs(forPiece text: String) throws -> [[Int64]] {
        let phonemes = try frontEnd.phonemes(for: text)
        // Cut after each punctuation mark and its space, so a piece too long for one call breaks at a
        // pause; the marks stay, Kokoro uses them for pauses and intonation.
        let clauseIDs = Self.clauses(of: phonemes).map(vocabulary.encode)
        return Self.pack(clauseIDs, limit: KokoroVocabulary.maxIDs, space: vocabulary.ids[" "])
    }

    /// `phonemes` cut after every space that follows a punctuation mark.
    static func clauses(of phonemes: String) -> [String] {
        var clauses: [String] = []
        var current = ""
        var afterMark = false
        for character in phonemes {
            current.append(character)
            if character == " ", afterMark {
                clauses.append(current)
                current = ""
            }
            afterMark = character.isPunctuation
        }
        if !current.isEmpty { clauses.append(current) }
        return clauses
    }

    /// Groups clauses into sequences of at most `limit` ids; a clause longer than that is cut at spaces.
    static func pack(_ clauses: [[Int64]], limit: Int, space: Int64?) -> [[Int64]] {
        var groups: [[Int64]] = []
        var current: [Int64] = []
        func flush() {
            while current.last == space, !current.isEmpty { current.removeLast() }
            if !current.isEmpty { groups.append(current) }
            current = []
        }
        for clause in clauses {
            if current.count + clause.count > limit { flush() }
            if clause.count <= limit {
                current += clause
                continue
            }
            // One clause alone is too long: cut at the last space before the limit (or hard at the limit).
            var rest = clause[...]
            while rest.count > limit {
                let window = rest.prefix(limit)
                let cut = window.lastIndex(of: space ?? -1).map { $0 + 1 } ?? window.endIndex
                current = Array(rest[rest.startIndex..<cut])
                flush()
                rest = rest[cut...]
            }
            current = Array(rest)
        }
        flush()
        return groups
    }

    /// One model call: `[0] + ids + [0]`, the style row for this length, the speed; `alone` when no other
    /// call of the request runs beside it.
    func speak(ids: [Int64], voice: String, speed: Float, alone: Bool) async throws -> [Float] {
        let tokens = [0] + ids + [0]
        let outputs = try await sessions.run([
            "tokens": Tensor(tokens, shape: [1, tokens.count]),
            "style": Tensor(voicePack.style(voice: voice, idCount: ids.count), shape: [1, KokoroVoicePack.styleWidth]),
            "speed": Tensor(scalar: speed),
        ], outputs: [Self.audioOutput], alone: alone)
        guard let audio = outputs[Self.audioOutput] else { throw Self.noAudioOutput(in: session) }
        return try audio.floats()
    }
}
