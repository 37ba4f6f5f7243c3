import ChorusModels
import ChorusONNX
import ChorusSpeech
import ChorusText
import Foundation

/// NeuTTS Nano / Air as upstream neutts 1.4.1 runs it: phonemes of the voice's transcript and of the text,
/// upstream's prompt with the voice's reference codes, the backbone's speech tokens, NeuCodec to 24 kHz.
///
/// Each piece of a request is spoken as upstream's `infer` does (one prompt, up to 2048 tokens with the
/// reference); a text longer than fits one prompt is split into pieces that do (`pieces(of:voice:)`), where
/// upstream would drop the rest. `stream` yields upstream's streamed chunks (25 codes each) as the backbone draws them.
/// Every model run happens on the inference executor.
public final class NeuTTSSynthesizer: SpeechSynthesizer, @unchecked Sendable {
    /// How generation is drawn.
    public struct Configuration: Sendable {
        public var sampling: NeuTTSSampling
        /// The seed of each request's draws (upstream seeds torch per call).
        public var seed: UInt64
        /// Whether `stream` yields upstream's 25-code chunks as tokens arrive (otherwise one chunk a request).
        public var streams: Bool
        /// Exactly this many speech tokens per piece when set (`Backbone.exactLength`), for benchmarks that
        /// compare a fixed amount of work; by default the environment's `CHORUS_NEUTTS_SPEECH_TOKENS`, else nil.
        public var speechTokens: Int?

        public init(sampling: NeuTTSSampling = .upstream, seed: UInt64 = 0, streams: Bool = true,
                    speechTokens: Int? = Configuration.environmentSpeechTokens) {
            self.sampling = sampling
            self.seed = seed
            self.streams = streams
            self.speechTokens = speechTokens
        }

        /// `CHORUS_NEUTTS_SPEECH_TOKENS` as a positive count, nil when unset or not one.
        public static var environmentSpeechTokens: Int? {
            ProcessInfo.processInfo.environment["CHORUS_NEUTTS_SPEECH_TOKENS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        }
    }

    public let engineName = "neutts"
    /// The speeds it speaks at: its own pace only (upstream has no rate control).
    public static let speeds: ClosedRange<Float> = 1...1
    public let sampleRate = CodecDecoder.sampleRate
    public let folder: NeuTTSModelFolder
    public let configuration: Configuration
    public let phonemizer: NeuTTSPhonemizer

    /// The espeak-ng that makes its phonemes, and the one upstream uses when it is another.
    public var diagnostics: String? {
        let espeak = phonemizer.espeak
        var note = "phonemes: espeak-ng \(espeak.version) (data \(espeak.dataPath)), \(folder.language)"
        if !espeak.version.hasPrefix("1.52") {
            note += "; upstream NeuTTS uses 1.52.0.1: `scripts/setup.sh --espeak-1.52` installs it"
        }
        return note
    }

    public let prompt: PromptBuilder
    public let backbone: Backbone
    public let codec: CodecDecoder
    private let runLimit = RunLimit(maximum: 1)
    /// The installed voices as read, each read again only when its folder changes.
    private let storedVoices: VoiceStore.Cache<NeuTTSVoice>
    /// The NeuCodec encoder, loaded by the first clone (speaking never reads it).
    let encoder: LazySession

    /// The default model folder: `<models root>/neutts` (see `ModelStore`).
    public static var defaultFolder: URL { ModelStore.current.folder(for: manifest) }

    /// The voices installed for the model folder `folder` (the default one when nil), without loading models.
    public static func installedVoices(folder: URL? = nil) throws -> [Voice] {
        let models = try NeuTTSModelFolder(url: folder ?? defaultFolder)
        return NeuTTSVoice.contents(of: models.voices, language: models.language).voices
    }

    /// The voices installed for the model folder `folder` (the default one when nil) that cannot be used, with why.
    public static func unusableVoices(folder: URL? = nil) -> [UnusableVoice] {
        guard let models = try? NeuTTSModelFolder(url: folder ?? defaultFolder) else { return [] }
        return NeuTTSVoice.contents(of: models.voices, language: models.language).unusable
    }

    /// Loads the model folder `folder` (the default one when nil).
    public init(folder: URL? = nil, configuration: Configuration = Configuration()) throws {
        let models = try NeuTTSModelFolder(url: folder ?? Self.defaultFolder)
        self.folder = models
        self.configuration = configuration
        phonemizer = try NeuTTSPhonemizer(language: models.language)
        let tokenizerPath = models.path(NeuTTSModelFolder.tokenizer)
        prompt = try PromptBuilder(tokenizer: BPETokenizer(tokenizerJSON: URL(fileURLWithPath: tokenizerPath)), source: tokenizerPath)
        backbone = try Backbone(session: InferenceSession(modelPath: models.path(NeuTTSModelFolder.backbone)),
                                stopToken: prompt.stopToken, sampling: configuration.sampling,
                                exactLength: configuration.speechTokens)
        codec = try CodecDecoder(session: InferenceSession(modelPath: models.path(NeuTTSModelFolder.decoder)))
        encoder = LazySession(modelPath: models.path(NeuTTSModelFolder.encoder))
        storedVoices = NeuTTSVoice.cache(of: models.voices, language: models.language)
    }

    public var voices: [Voice] { storedVoices.contents.voices.map(\.voice) }
    public var unusableVoices: [UnusableVoice] { storedVoices.contents.unusable }

    /// Forgets what was read of voice `id` (after it is replaced or removed).
    public func forgetVoice(_ id: String) {
        storedVoices.forget(id)
    }

    /// The voice `reference` names: a clone's own, or an installed voice's as read once and kept (the first
    /// installed one when nil).
    public func neuTTSVoice(_ reference: VoiceReference?) throws -> NeuTTSVoice {
        guard case .cloned(let cloned)? = reference else { return try storedVoices.voice(reference?.id).conditioning }
        guard cloned.voice.engine == engineName, let conditioning = cloned.conditioning as? NeuTTSVoice else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: cloned.voice.id, madeBy: cloned.voice.engine, engine: engineName)
        }
        return conditioning
    }

    /// The prompt ids of `text` in `voice`.
    public func promptIDs(text: String, voice: NeuTTSVoice) throws -> [Int] {
        try prompt.ids(referencePhonemes: phonemizer.phonemes(for: voice.transcript),
                       textPhonemes: phonemizer.phonemes(for: text), referenceCodes: voice.codes)
    }

    /// `text` spoken in `voice` as upstream `infer` does: the generated codes decoded at once.
    public func speak(_ text: String, voice: NeuTTSVoice) throws -> [Float] {
        let tokens = try backbone.generate(.init(ids: promptIDs(text: text, voice: voice), seed: configuration.seed)) { _ in
            try InferenceExecutor.checkCancellation()
        }
        let codes = prompt.codes(in: tokens)
        guard !codes.isEmpty else { throw NeuTTSError.noSpeechCodes }
        return try codec.decode(codes)
    }

    /// `text` spoken in `voice` as upstream's streaming path does, `onChunk` called with each piece.
    public func speakStreaming(_ text: String, voice: NeuTTSVoice, onChunk: ([Float]) throws -> Void) throws {
        var streaming = TokenStreaming(decoder: StreamingCodecDecoder(codec: codec, referenceCodes: voice.codes),
                                       schedule: StreamingCodecDecoder.schedule)
        let prompt = self.prompt
        _ = try backbone.generate(.init(ids: promptIDs(text: text, voice: voice), seed: configuration.seed)) { token in
            try InferenceExecutor.checkCancellation()
            guard let code = prompt.code(of: token) else { return }
            let audio = try streaming.add(code)
            if !audio.isEmpty { try onChunk(audio) }
        }
        guard !streaming.tokens.isEmpty else { throw NeuTTSError.noSpeechCodes }
        let rest = try streaming.finish()
        if !rest.isEmpty { try onChunk(rest) }
    }

    /// How much of a piece's context its speech is given: the speech tokens a piece of `n` phonemes is budgeted
    /// are `n` times the voice's own codes per phoneme times this, so a speaker slower in the text than in the
    /// reference still fits.
    static let speechMargin = 1.5

    /// The pieces `text` is spoken in with `voice`, each small enough that its prompt and its speech fit the
    /// backbone's context. Upstream speaks a text as one prompt and stops at the context, dropping what does not
    /// fit; Chorus splits at sentence ends (then clauses, then words) instead, packing sentences up to the
    /// budget. A piece's speech is estimated from the voice's own pace: its codes per phoneme of its transcript.
    public func pieces(of text: String, voice: NeuTTSVoice) throws -> [String] {
        let phonemes = try phonemeBudget(voice)
        let phonemizer = self.phonemizer
        let measure = SentenceChunker.Measure { piece in
            piece.allSatisfy(\.isWhitespace) ? 0 : (try? phonemizer.phonemes(for: String(piece)).count) ?? Int.max
        }
        return SentenceChunker(maxLength: phonemes, measure: measure, packsSentences: true).split(text)
            .filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// The phonemes of text one piece may hold in `voice`: what the backbone's context leaves after the voice's
    /// reference prompt, at the voice's own pace. Throws `NeuTTSError.promptTooLong` when not one fits, which a
    /// clone checks before the voice is kept, as speaking does.
    func phonemeBudget(_ voice: NeuTTSVoice) throws -> Int {
        let reference = try phonemizer.phonemes(for: voice.transcript)
        let base = try prompt.ids(referencePhonemes: reference, textPhonemes: "", referenceCodes: voice.codes).count
        let codesPerPhoneme = Double(voice.codes.count) / Double(max(reference.count, 1))
        // A phoneme costs at most one prompt token, plus its speech.
        let phonemes = Int(Double(Backbone.context - base) / (1 + codesPerPhoneme * Self.speechMargin))
        guard phonemes >= 1 else { throw NeuTTSError.promptTooLong(tokens: base, context: Backbone.context) }
        return phonemes
    }

    /// The audio of `request`, piece by piece (`pieces(of:voice:)`), each piece streamed in upstream's chunks
    /// or spoken whole as `configuration.streams` says (see `PieceByPieceSpeech`).
    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate, speeds: Self.speeds,
            setup: { [self] in try neuTTSVoice(request.voice) },
            pieces: { [self] voice in
                try request.checkCost(units: try phonemizer.phonemes(for: request.text).unicodeScalars.count, unit: "phonemes")
                return try pieces(of: request.text, voice: voice)
            }
        ) { [self] piece, voice, early in
            try await InferenceExecutor.shared.run(limit: runLimit) { [self] in
                guard configuration.streams else { return try speak(piece, voice: voice) }
                try speakStreaming(piece, voice: voice, onChunk: early)
                return []
            }
        }
    }
}
