import ChorusModels
import Foundation
import ChorusONNX
import ChorusPhonemizer
import ChorusPieceModel
import ChorusSpeech
import ChorusText

/// Piper (VITS) text to speech: espeak-ng phonemes in, audio at the voice's rate out, a sentence at a time.
public final class PiperSynthesizer: SpeechSynthesizer {
    public let engineName = "piper"
    public var sampleRate: Int { config.sampleRate }
    public let voices: [Voice]
    public let config: PiperVoiceConfig
    private let encoder: PiperPhonemeEncoder
    private let phonemizer: EspeakPhonemizer
    /// Seconds of silence between sentences, as Piper inserts them.
    public let sentenceSilence: Double

    /// The voice's VITS graph, its sentences split over the cores (see `PieceModel`).
    let model: PieceModel
    public var piecesInFlight: Int { model.parallelism.inFlight }
    /// Model calls of this voice made at once (see `PieceModel.runLimit`).
    public var runLimit: RunLimit { model.runLimit }
    /// How the cores are shared between the sentences of a text (`CHORUS_PIECES` overrides it).
    public var parallelism: PieceParallelism { model.parallelism }

    /// Text longer than this many characters is phonemized and spoken a piece at a time.
    static let pieceLength = 400
    /// The most phonemes one model call takes: a sentence with more is cut at its last word break
    /// before it. Prose has about one phoneme per character, so a piece of `pieceLength` characters
    /// never comes near; symbols that espeak reads out by name do (400 emoji are some 10,000 phonemes,
    /// and 4,096 of them took one request to 1.33 GB where 4,096 characters of prose take 260 MB).
    static let maximumPhonemesPerCall = 1_000
    /// The pieces of speech heard as it is made (see `PieceRamp`): the first sentence, or its first
    /// clauses up to 60 characters when it is longer, then pieces each at most twice as long as all the
    /// text before them (in time while a second of speech takes at most a third of a second to make;
    /// Piper takes about a tenth).
    static let streamingPieces = PieceRamp(firstLength: 60, growth: 2, maxLength: pieceLength)

    /// The session options a voice loads with unless told otherwise: the runtime's defaults without
    /// the memory pattern. The pattern is planned per input shape and every sentence has its own
    /// length, so the arena kept growing with blocks planned for earlier sentences (measured on the
    /// six sentences of bench/tts_paragraph.txt spoken over and over: 128 MiB at start, 279 after 20
    /// sentences, 357 after 40; without the pattern 237 after 20 and 241 after 60).
    public static let defaultSessionOptions = SessionOptions(usesMemoryPattern: false)

    /// Loads a voice from `modelPath` (the `.onnx`, or a folder holding one: see `voiceFile(_:)`) and its
    /// `.onnx.json` beside it; `options`, `parallelism` and `optimizedModels` are as for `PieceModel`.
    public init(modelPath: URL, sentenceSilence: Double = 0.2, options: SessionOptions = PiperSynthesizer.defaultSessionOptions,
                parallelism: PieceParallelism? = nil, optimizedModels: OptimizedModelCache? = OptimizedModelCache.current()) throws {
        let modelPath = try Self.voiceFile(modelPath)
        self.sentenceSilence = sentenceSilence
        let configURL = try Self.checkPresent(modelPath)
        config = try PiperVoiceConfig(contentsOf: configURL)
        // Piper's VITS export puts the waveform in "output".
        model = try PieceModel(modelPath: modelPath.path, options: options, parallelism: parallelism,
                               optimizedModels: optimizedModels, ramp: Self.streamingPieces, audioOutput: "output",
                               remedy: "It is not a Piper VITS voice; use an .onnx that Piper exported, with its .onnx.json.")
        encoder = PiperPhonemeEncoder(ids: config.phonemeIDs)
        phonemizer = try EspeakPhonemizer.shared()
        let id = modelPath.deletingPathExtension().lastPathComponent
        voices = [Self.describe(id: id, config: config)]
    }

    /// The voice at `modelPath` (the default voice when nil), read from its config without loading the model.
    public static func installedVoices(modelPath: URL? = nil) throws -> [Voice] {
        let modelPath = try voiceFile(modelPath ?? defaultModel())
        let config = try PiperVoiceConfig(contentsOf: checkPresent(modelPath))
        return [describe(id: modelPath.deletingPathExtension().lastPathComponent, config: config)]
    }

    /// The voice file `location` names: itself, or the one `.onnx` in a folder, so a voice `chorus models pull
    /// piper:<voice>` installed (`<models>/piper-<voice>`) is read from its folder like every other model.
    public static func voiceFile(_ location: URL) throws -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isFolder), isFolder.boolValue else { return location }
        let voices = ((try? FileManager.default.contentsOfDirectory(atPath: location.path)) ?? []).filter { $0.hasSuffix(".onnx") }.sorted()
        guard voices.count == 1 else {
            throw ModelError.missingFile(
                model: "piper", path: location.appendingPathComponent("<voice>.onnx").path,
                remedy: voices.isEmpty ? "The folder holds no Piper voice; pull one with `chorus models pull piper:<voice>`."
                    : "The folder holds \(voices.count) voices (\(voices.joined(separator: ", "))); name the .onnx file to use.")
        }
        return location.appendingPathComponent(voices[0])
    }

    /// The config beside the voice `modelPath`, once both are found to be there.
    static func checkPresent(_ modelPath: URL) throws -> URL {
        let configURL = URL(fileURLWithPath: modelPath.path + ".json")
        guard FileManager.default.fileExists(atPath: modelPath.path) else {
            throw ModelError.missingFile(model: "piper", path: modelPath.path,
                                         remedy: "Check the path; the default voice installs with `scripts/setup.sh`.")
        }
        guard FileManager.default.fileExists(atPath: configURL.path) else {
            throw ModelError.missingFile(model: "piper", path: configURL.path,
                                         remedy: "A Piper voice needs its .onnx.json next to the .onnx.")
        }
        return configURL
    }

    /// The voice a model is, from its config. A Piper voice's `.onnx.json` does not say how the voice
    /// presents, so its gender is unknown.
    static func describe(id: String, config: PiperVoiceConfig) -> Voice {
        Voice(id: id, engine: "piper", language: config.languageCode.replacingOccurrences(of: "_", with: "-"),
              gender: .unknown, summary: "Piper VITS voice '\(config.dataset)', \(config.sampleRate) Hz", sampleRate: config.sampleRate)
    }

    /// The machine's split for a Piper voice that serves `request` and no other (see
    /// `PieceRamp.parallelism(servingOnly:)`).
    public static func parallelism(servingOnly request: SynthesisRequest) throws -> PieceParallelism {
        try streamingPieces.parallelism(servingOnly: request)
    }

    /// Loads the default voice from the model directory (`<models>/piper/en_US-joe-medium.onnx`).
    public convenience init(options: SessionOptions = PiperSynthesizer.defaultSessionOptions,
                            parallelism: PieceParallelism? = nil) throws {
        try self.init(modelPath: Self.defaultModel(), options: options, parallelism: parallelism)
    }

    /// The audio of `request`, a sentence per chunk in order, each chunk but the last ending in
    /// `sentenceSilence` (see `PieceModel.stream` for how the sentences run).
    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        let settings = Settings(request.options, config: config, sentenceSilence: sentenceSilence)
        let silence = [Float](repeating: 0, count: Int(settings.sentenceSilence * Double(sampleRate)))
        return model.stream(
            request, sampleRate: sampleRate,
            voice: { [self] in
                try settings.check(config)
                return try voice(request.voice)
            },
            frontEnd: reading,
            calls: { [self] piece, clauses in
                let calls = modelInputs(forClauses: clauses)
                let cutAtClause = !PieceRamp.endsSentence(piece)
                return calls.indices.map { Sentence(ids: calls[$0], endsSentence: !(cutAtClause && $0 == calls.count - 1)) }
            },
            speak: { [self] sentence, _, alone, _ in
                try await speak(ids: sentence.ids, speed: request.speed, settings: settings, alone: alone)
            },
            samples: { sentence in
                // Silence goes between sentences, so only when another one follows.
                !sentence.isLast && sentence.input.input.call.endsSentence ? sentence.output + silence : sentence.output
            })
    }

    /// One model call's input: a sentence's framed ids.
    struct Sentence: Sendable {
        var ids: [Int64]
        /// Whether a sentence ends here, and not only a piece cut at a clause (the first of a stream).
        var endsSentence = true
    }

    /// Each piece's phonemes, clause by clause, a phoneme a unit of cost: a few hundred Hebrew letters, each
    /// read out by name, would speak for minutes.
    var reading: PieceModel.FrontEnd<[PhonemeClause]> {
        PieceModel.FrontEnd(unit: "phonemes", read: { [phonemizer, config] piece in
            try phonemizer.phonemize(piece, voice: config.espeakVoice)
        }, cost: { clauses in clauses.reduce(0) { $0 + $1.phonemes.unicodeScalars.count } })
    }

    /// Refuses `request` when its pieces make far more phonemes than its length, as `stream` does.
    func checkCost(of request: SynthesisRequest) throws {
        _ = try reading.read(request, in: model.ramp.pieces(of: request))
    }

    /// The framed phoneme ids (`^ _ p _ ... $`) the model is run on for `text`, one sequence per
    /// sentence, in order; for checking what the model is fed.
    public func modelInputs(for text: String) throws -> [[Int64]] {
        try Self.streamingPieces.pieces(of: text, heardAsMade: false).flatMap { piece in
            modelInputs(forClauses: try reading.read(piece))
        }
    }

    /// One id sequence per sentence of a piece's phonemized clauses.
    func modelInputs(forClauses clauses: [PhonemeClause]) -> [[Int64]] {
        PiperPhonemeEncoder.sentences(from: clauses).flatMap { Self.bounded($0) }.map(encoder.encode)
    }

    /// `phonemes` in runs of at most `limit` scalars, each cut after the last space before the limit
    /// (at the limit when a run has none).
    static func bounded(_ phonemes: String, limit: Int = maximumPhonemesPerCall) -> [String] {
        var scalars = Substring(phonemes).unicodeScalars
        var runs: [String] = []
        while scalars.count > limit {
            let cap = scalars.index(scalars.startIndex, offsetBy: limit)
            let cut = scalars[..<cap].lastIndex(of: " ").map { scalars.index(after: $0) } ?? cap
            runs.append(String(Substring(scalars[..<cut])))
            scalars = scalars[cut...]
        }
        runs.append(String(Substring(scalars)))
        return runs.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// One model call: a sentence's framed ids to samples; `alone` when no other call of the request
    /// runs beside it.
    func speak(ids: [Int64], speed: Float, settings: Settings, alone: Bool) async throws -> [Float] {
        var inputs = try [
            "input": Tensor(ids, shape: [1, ids.count]),
            "input_lengths": Tensor(scalar: Int64(ids.count)),
            "scales": Tensor([settings.noiseScale, config.lengthScale / speed, settings.noiseW], shape: [3]),
        ]
        // A voice of several speakers takes which one; piper's own run passes 0 when none is given.
        if config.speakerCount > 1 { inputs["sid"] = try Tensor([Int64(settings.speaker)], shape: [1]) }
        return try await model.audio(inputs, alone: alone)
    }
}

extension PiperSynthesizer {
    /// Piper's options, named as piper's own command line names them.
    public static let options: [SpeechOption] = [
        SpeechOption("speaker", .integer(0...9_999),
                     summary: "The speaker of a voice trained on several (numbered by its config's speaker_id_map); 0 by default."),
        SpeechOption("noise_scale", .number(0...2),
                     summary: "How much the voice's sound varies; the voice config's noise_scale (usually 0.667) by default."),
        SpeechOption("noise_w", .number(0...2),
                     summary: "How much the length of each phoneme varies; the voice config's noise_w (usually 0.8) by default."),
        SpeechOption("sentence_silence", .number(0...10), summary: "Seconds of silence between sentences; 0.2 by default."),
    ]

    /// A request's options over the voice's defaults.
    struct Settings: Sendable {
        var speaker: Int
        var noiseScale: Float
        var noiseW: Float
        var sentenceSilence: Double

        init(_ options: [String: SpeechOptionValue], config: PiperVoiceConfig, sentenceSilence: Double) {
            speaker = options["speaker"]?.number.map { Int($0) } ?? 0
            noiseScale = options["noise_scale"]?.number.map { Float($0) } ?? config.noiseScale
            noiseW = options["noise_w"]?.number.map { Float($0) } ?? config.noiseW
            self.sentenceSilence = options["sentence_silence"]?.number ?? sentenceSilence
        }

        /// The speaker must be one the voice has.
        func check(_ config: PiperVoiceConfig) throws {
            guard speaker < config.speakerCount else {
                throw SpeechError.invalidOption(
                    name: "speaker", value: String(speaker),
                    expected: config.speakerCount == 1 ? "0 (this voice has one speaker)" : "a whole number from 0 to \(config.speakerCount - 1)")
            }
        }
    }
}
