import ChorusModels
import Foundation
import ChorusONNX
import ChorusPhonemizer
import ChorusPieceModel
import ChorusSpeech
import ChorusText

/// Kokoro-82M text to speech: espeak-ng phonemes, a style vector per voice, 24 kHz audio.
public final class KokoroSynthesizer: SpeechSynthesizer {
    public let engineName = "kokoro"
    public let sampleRate = 24_000
    public let voices: [Voice]
    /// The espeak-ng voice that phonemizes the text (the language spoken), "en-us" by default.
    public let espeakVoice: String
    private let vocabulary: KokoroVocabulary
    /// Kokoro's graph, its calls split over the cores (see `PieceModel`).
    let model: PieceModel
    /// How the cores are shared between the pieces of a text (`CHORUS_PIECES` overrides it).
    public var parallelism: PieceParallelism { model.parallelism }
    /// Model calls of this engine made at once (see `PieceModel.runLimit`).
    public var runLimit: RunLimit { model.runLimit }
    public var piecesInFlight: Int { model.parallelism.inFlight }
    private let voicePack: KokoroVoicePack
    private let frontEnd: KokoroPhonemizer

    /// Text is phonemized and spoken in pieces of at most this many characters.
    static let pieceLength = 300
    /// The pieces of speech heard as it is made (see `PieceRamp`): the first sentence, or its first
    /// clauses up to 60 characters when it is longer (fewer when this machine would not make them within
    /// `firstPieceSeconds`: see `FirstPiecePace`), then pieces each at most half as long as all the
    /// text before them, which keeps every piece in time while a second of speech takes at most two
    /// thirds of a second to make. Served piece by piece on 2 cores, Kokoro took 0.60 s per second of
    /// speech (bench/stream_first_byte.py, 8 sentences: 24.6 s for 40.6 s), and with pieces as long as
    /// all the text before them (in time only up to 0.5) a listener heard gaps of up to 2.1 s.
    static let streamingPieces = PieceRamp(firstLength: 60, growth: 0.5, maxLength: pieceLength)
    /// Model time the first piece of a stream may take, so that with the phonemizer, the encoder and the
    /// network its audio reaches a listener within a second (see `FirstPiecePace`).
    static let firstPieceSeconds = 0.6
    /// The first piece before this process has timed a call: what 2 cores make in `firstPieceSeconds`.
    static let startingFirstLength = 24
    /// The quiet kept where a streamed sentence was cut (Kokoro starts and ends every call as a whole utterance).
    static let seams = PieceModel.Seams(withinSentence: 0.04)

    /// Kokoro's export holds each token's predicted duration, in frames, in this value (after the rounding and
    /// the clip to at least one frame; upstream's `pred_dur`, kokoro/model.py); the engine adds an input
    /// capping it, which every call feeds (see `durationCaps`).
    static let durations = ModelGraphEdit(capping: "/encoder/Clip_output_0", by: "duration_cap", rank: 2)
    /// The frames a pad token may last where a streamed piece was cut inside a sentence. Kokoro frames its
    /// ids with a pad token at each end and makes it as long as a whole utterance's start or end (0.28 s
    /// before "The lamp turned" and 0.71 s after it), at the full cost of speech, and `seams` then throws
    /// all but 0.04 s of it away. Capped at two frames (0.05 s: a frame is 600 samples), "The lamp turned"
    /// (15 ids, pads of 12 and 11 frames) made 1.43 s of audio instead of 1.90 s (python onnxruntime 1.32, the
    /// same edit). The speech's own quiet, such as a stop consonant stretched at what the model takes for the
    /// end of an utterance, is left to `seams`: only the pads are not speech.
    static let padFramesAtCuts: Float = 2
    /// The session options the model loads with unless told otherwise: the runtime's defaults without
    /// the memory pattern, which is planned per input shape; every piece of text has its own length,
    /// so the arena kept growing with blocks planned for earlier pieces (see `PiperSynthesizer`).
    public static let defaultSessionOptions = SessionOptions(usesMemoryPattern: false)

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

    /// Loads a Kokoro model; `espeakVoice` picks the language the text is read in. `options`,
    /// `parallelism` and `optimizedModels` are as for `PieceModel`.
    public init(files: Files = Files(folder: ModelStore.current.folder(for: manifest)), espeakVoice: String = "en-us",
                options: SessionOptions = KokoroSynthesizer.defaultSessionOptions, parallelism: PieceParallelism? = nil,
                optimizedModels: OptimizedModelCache? = OptimizedModelCache.current()) throws {
        try files.checkPresent()
        vocabulary = try KokoroVocabulary(contentsOf: files.vocabulary)
        voicePack = try KokoroVoicePack(contentsOf: files.voices)
        var options = options
        options.graphEdit = Self.durations
        // Kokoro's ONNX export puts the waveform in "audio".
        model = try PieceModel(modelPath: files.model.path, options: options, parallelism: parallelism,
                               optimizedModels: optimizedModels, ramp: Self.streamingPieces,
                               firstPiece: FirstPiecePace(within: Self.firstPieceSeconds, startingLength: Self.startingFirstLength),
                               seams: Self.seams,
                               audioOutput: "audio",
                               remedy: "It is not a Kokoro v1.0 ONNX export; use the model `scripts/setup.sh` installs.")
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

    /// The audio of `request`, one model call per chunk of phoneme ids, in order (see `PieceModel.stream`):
    /// each piece phonemized once, and the whole refused before any model runs when it makes far more
    /// phonemes than its length (580 bytes of Hebrew, its letters read out by name, kept Kokoro speaking
    /// for 150 s).
    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        model.stream(request, sampleRate: sampleRate, voice: { [self] in try voice(request.voice) }, frontEnd: reading,
                     calls: { [self] _, phonemes in modelInputs(forPhonemes: phonemes) }) { [self] ids, voice, alone, cuts in
            try await speak(ids: ids, voice: voice.id, speed: request.speed, alone: alone, cuts: cuts)
        }
    }

    /// Each piece's phonemes, a phoneme a unit of cost.
    var reading: PieceModel.FrontEnd<String> {
        PieceModel.FrontEnd(unit: "phonemes", read: { [frontEnd] piece in try frontEnd.phonemes(for: piece) },
                            cost: { $0.unicodeScalars.count })
    }

    /// Refuses `request` when its pieces make far more phonemes than its length, as `stream` does.
    func checkCost(of request: SynthesisRequest) throws {
        _ = try reading.read(request, in: model.ramp.pieces(of: request))
    }

    /// The phoneme id sequences the model is run on for `text`, in order, each within the 510-id
    /// limit and before the `[0] ... [0]` framing; for checking what the model is fed.
    public func modelInputs(for text: String) throws -> [[Int64]] {
        try Self.streamingPieces.pieces(of: text, heardAsMade: false).flatMap { piece in
            modelInputs(forPhonemes: try frontEnd.phonemes(for: piece))
        }
    }

    /// The machine's split for a Kokoro that serves `request` and no other (see `PieceRamp.parallelism(servingOnly:)`).
    public static func parallelism(servingOnly request: SynthesisRequest) throws -> PieceParallelism {
        try streamingPieces.parallelism(servingOnly: request)
    }

    /// The id sequences for one piece's phonemes.
    func modelInputs(forPhonemes phonemes: String) -> [[Int64]] {
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

    /// One model call: `[0] + ids + [0]`, the style row for this length, the speed, the pads' durations capped
    /// at `cuts`; `alone` when no other call of the request runs beside it.
    func speak(ids: [Int64], voice: String, speed: Float, alone: Bool,
               cuts: PieceModel.Cuts = PieceModel.Cuts(atStart: false, atEnd: false)) async throws -> [Float] {
        let tokens = [0] + ids + [0]
        return try await model.audio([
            "tokens": Tensor(tokens, shape: [1, tokens.count]),
            "style": Tensor(voicePack.style(voice: voice, idCount: ids.count), shape: [1, KokoroVoicePack.styleWidth]),
            "speed": Tensor(scalar: speed),
            Self.durations.capInput: Tensor(Self.durationCaps(tokens: tokens.count, cuts: cuts), shape: [1, tokens.count]),
        ], alone: alone)
    }

    /// The most frames each of `tokens` tokens may last: `padFramesAtCuts` for a pad at a cut, no limit
    /// (infinity, which leaves the model's duration exactly as it was) for every other.
    static func durationCaps(tokens: Int, cuts: PieceModel.Cuts) -> [Float] {
        var caps = [Float](repeating: .infinity, count: tokens)
        if cuts.atStart, tokens > 0 { caps[0] = padFramesAtCuts }
        if cuts.atEnd, tokens > 0 { caps[tokens - 1] = padFramesAtCuts }
        return caps
    }
}
