import ChorusModels
import ChorusONNX
import ChorusDSP
import Foundation
import ChorusSpeech
import ChorusText

/// CosyVoice 3 zero-shot voice cloning behind the shared speech protocol: text and a voice folder
/// in, 24 kHz audio out, through the three stages `LanguageModel`, `FlowMatching` and `Vocoder`.
public final class CosyVoiceSynthesizer: SpeechSynthesizer {
    /// What can be tuned per engine instance.
    public struct Configuration: Sendable {
        /// How speech tokens are drawn.
        public var sampling: Sampling
        /// Seed of the token sampler; each request starts from it, so equal requests give equal audio.
        public var samplingSeed: UInt64
        /// Seed of the fixed flow noise.
        public var noiseSeed: UInt64
        /// Options of all 12 sessions. Spinning is off by default: the stages call their sessions in
        /// turn (three per decode step), and each session's idle pool threads would otherwise spin and
        /// take the cores from the next session's work (measured: HiFT on the test models 35-50 ms
        /// without spinning, 150-500 ms with it, on a busy 2-core machine). The memory arena is off
        /// too: the KV cache output grows every step, and the arena kept every size it had served
        /// (resident memory grew 3.5x the cache's own growth over 2,000 steps; without it, 1.07x).
        public var sessionOptions: SessionOptions
        /// Whether streaming draws tokens in an executor job of its own while the flow and the vocoder turn the
        /// tokens so far into audio in others (upstream's `llm_job` thread); off, the LLM waits for each chunk's audio.
        /// The audio is the same either way: chunks are cut at fixed token counts. Off by default: on this
        /// project's 2-core machine each stage's runs already take both cores, and overlapping them gained
        /// little (streamed in 0.94-1.00x the time on the generated models, two runs) while the first chunk
        /// came 1.5x later (16-19 vs 11-13 ms; `python3 bench/cosyvoice_bench.py`). It may pay where cores sit idle.
        public var overlapsStages: Bool
        /// Whether text goes through wetext's grammars first, as upstream does when wetext is installed.
        public var textNormalization: TextNormalization
        /// The threads every model run of the engine goes to.
        public var executor: InferenceExecutor
        /// Exactly this many speech tokens per piece when set (every stop id masked until then), else upstream's
        /// limits from the text's length. For benchmarks: random-weight stand-ins of the real sizes stop
        /// anywhere, and two runtimes timed side by side must generate alike. `init(folder:configuration:)`
        /// takes it from `speechTokensVariable` when this is nil.
        public var speechTokens: Int?

        /// The environment variable `init(folder:configuration:)` reads `speechTokens` from, a positive whole number.
        public static let speechTokensVariable = "CHORUS_COSYVOICE_SPEECH_TOKENS"

        public init(sampling: Sampling = .upstream, samplingSeed: UInt64 = 0, noiseSeed: UInt64 = 0,
                    sessionOptions: SessionOptions = SessionOptions(allowSpinning: false, usesMemoryArena: false),
                    overlapsStages: Bool = false, textNormalization: TextNormalization = .automatic,
                    executor: InferenceExecutor = .shared, speechTokens: Int? = nil) {
            self.speechTokens = speechTokens
            self.sampling = sampling
            self.samplingSeed = samplingSeed
            self.noiseSeed = noiseSeed
            self.sessionOptions = sessionOptions
            self.overlapsStages = overlapsStages
            self.textNormalization = textNormalization
            self.executor = executor
        }
    }

    /// Where the wetext grammars come from.
    public enum TextNormalization: Sendable {
        /// `defaultTextNormalizerFolder` when scripts/setup.sh installed the grammars there; otherwise none,
        /// which is upstream's path without a normaliser (Chinese digits reach the model as digits).
        /// Grammars that are there but broken are an error, not a silent fallback.
        case automatic
        /// The grammars in this folder; loading fails when they are missing.
        case wetext(folder: URL)
        /// No wetext, whatever is installed.
        case disabled
    }

    /// The default wetext folder: `<models root>/wetext` (see `ModelStore`).
    public static var defaultTextNormalizerFolder: URL { ModelStore.current.folder(for: WeTextNormalizer.manifest) }

    /// Everything one synthesis produced, stage by stage.
    public struct Result: Sendable {
        /// Tokens as the LLM drew them.
        public var sampledTokens: [Int]
        /// Tokens after the silence filter, as the flow read them.
        public var tokens: [Int]
        public var mel: MelSpectrogram
        public var audio: [Float]
    }

    public let engineName = "cosyvoice"
    public let sampleRate = Vocoder.sampleRate
    /// The installed voices, sorted by id, as the voices folder holds them now (`register`, `removeVoice` and
    /// other processes change them while the engine runs).
    public var voices: [Voice] { catalog.contents.voices.map(\.voice) }
    public var unusableVoices: [UnusableVoice] { catalog.contents.unusable }

    /// The LLM stage.
    public let languageModel: LanguageModel
    /// The flow-matching stage.
    public let flow: FlowMatching
    /// The HiFT stage.
    public let vocoder: Vocoder
    /// The text front end.
    public let frontend: Frontend
    public let configuration: Configuration
    /// The flow's initial noise, drawn as far as utterances need and kept for the engine's lifetime
    /// (upstream draws it once when the model loads).
    public let noise: FlowNoise
    let catalog: VoiceStore.Cache<VoiceCatalog.Entry>
    /// Makes, writes and removes the engine's voices (its encoders loaded by the first clone).
    public let cloner: CosyVoiceCloner
    /// Pieces synthesised at once: one, since each already keeps the cores busy (its LLM and decode jobs
    /// together hold the one place); concurrent requests wait their turn, suspended.
    public let runLimit = RunLimit(maximum: 1)
    /// The folder the models were loaded from (voice cloning reads its campplus and speech tokenizer).
    public let modelFolder: URL
    /// The folder installed voices live in.
    public let voicesFolder: URL

    /// The default model folder: `<models root>/cosyvoice` (see `ModelStore`).
    public static var defaultFolder: URL { ModelStore.current.folder(for: manifest) }

    /// Where the voices of a model folder live: its `voices` sub-folder.
    public static func voicesFolder(of modelFolder: URL) -> URL {
        modelFolder.appendingPathComponent("voices", isDirectory: true)
    }

    /// The voices installed for the model folder `folder` (the default one when nil), read from its
    /// `voices` sub-folder without loading any model; the folder's files must be there, as for loading.
    public static func installedVoices(folder: URL? = nil) throws -> [Voice] {
        let folder = folder ?? defaultFolder
        _ = try ModelFolder(url: folder)
        return VoiceCatalog.entries(in: voicesFolder(of: folder)).map(\.voice)
    }

    /// The voices of the model folder `folder` (the default one when nil) that are installed but cannot
    /// be used, with why; read from disk without loading any model.
    public static func unusableVoices(folder: URL? = nil) -> [UnusableVoice] {
        VoiceCatalog.contents(of: voicesFolder(of: folder ?? defaultFolder)).unusable
    }

    /// Loads the model folder `folder` (the default one when nil) with the voices in its `voices` sub-folder.
    /// `configuration.speechTokens`, when nil, comes from `Configuration.speechTokensVariable` in the environment;
    /// a value there that is not a whole number from 1 to 100,000 is an error.
    public convenience init(folder: URL? = nil, configuration: Configuration = Configuration()) throws {
        let folder = folder ?? Self.defaultFolder
        var configuration = configuration
        if configuration.speechTokens == nil {
            configuration.speechTokens = try Configuration.speechTokens(in: ProcessInfo.processInfo.environment)
        }
        try self.init(models: ModelFolder(url: folder), voicesFolder: Self.voicesFolder(of: folder), configuration: configuration)
    }

    /// Loads the models and the tokenizer in `models` and the voices in the sub-folders of `voicesFolder`.
    public convenience init(models: ModelFolder, voicesFolder: URL, configuration: Configuration = Configuration()) throws {
        try self.init(models: models, voicesFolder: voicesFolder, tokenizer: Frontend.loadTokenizer(from: models.url),
                      configuration: configuration)
    }

    /// Loads the models in `models` and the voices in the sub-folders of `voicesFolder`; text is read with `tokenizer`.
    public init(models: ModelFolder, voicesFolder: URL, tokenizer: any TextTokenizer,
                configuration: Configuration = Configuration()) throws {
        let sessions = try models.loadSessions(options: configuration.sessionOptions)
        languageModel = LanguageModel(sessions: sessions)
        flow = FlowMatching(sessions: sessions)
        vocoder = Vocoder(sessions: sessions)
        frontend = Frontend(tokenizer: tokenizer, wetext: try Self.loadWeText(configuration.textNormalization))
        self.configuration = configuration
        noise = FlowNoise(seed: configuration.noiseSeed)
        catalog = VoiceCatalog.cache(of: voicesFolder)
        cloner = CosyVoiceCloner(modelFolder: models.url, voicesFolder: voicesFolder, executor: configuration.executor)
        modelFolder = models.url
        self.voicesFolder = voicesFolder
    }

    /// Speaks token ids `text` in `voice`. `promptText` holds the ids of the voice's transcript after the
    /// default instruction (zero-shot cloning, upstream `inference_zero_shot`); or, with `usesPromptSpeech`
    /// false, the ids of an instruction such as a dialect's, and the LLM then hears none of the clip's
    /// speech tokens (upstream `inference_instruct2`). The flow takes the clip's tokens, mel and embedding either way.
    public func synthesize(promptText: [Int], text: [Int], voice: VoicePrompt, usesPromptSpeech: Bool = true,
                           speed: Float = 1) throws -> Result {
        let prompt = voice.aligned()
        let sampled = try languageModel.generate(
            request(promptText: promptText, text: text, promptSpeech: usesPromptSpeech ? prompt.speechTokens : []),
            onToken: { _ in })
        let tokens = SilenceFilter.filter(sampled)
        var mel = try flow.mel(tokens: tokens, voice: prompt, noise: noise)
        if speed != 1 {
            mel = mel.resampled(to: Int(Float(mel.frames) / speed))
        }
        return Result(sampledTokens: sampled, tokens: tokens, mel: mel, audio: try vocoder.audio(for: mel))
    }

    /// The LLM request for these ids with the engine's sampling and seed.
    func request(promptText: [Int], text: [Int], promptSpeech: [Int]) -> LanguageModel.Request {
        LanguageModel.Request(promptText: promptText, text: text, promptSpeech: promptSpeech,
                              sampling: configuration.sampling, seed: configuration.samplingSeed,
                              length: configuration.speechTokens)
    }

    /// Speaks token ids `text` in `voice` as upstream streaming does (see `TokenHopSchedule`), calling
    /// `onChunk` with each piece of audio as soon as it is ready; returns the tokens the flow read.
    /// `promptText` and `usesPromptSpeech` are as for `synthesize`. The model runs are jobs on the
    /// configuration's executor (the LLM in a job of its own beside the decoding with `overlapsStages`);
    /// `onChunk` runs on the calling task, and cancelling it stops the run in progress.
    @discardableResult
    public func streamSynthesis(promptText: [Int], text: [Int], voice: VoicePrompt, usesPromptSpeech: Bool = true,
                                onChunk: ([Float]) throws -> Void) async throws -> [Int] {
        let prompt = voice.aligned()
        return try await stream(
            languageModel, request: request(promptText: promptText, text: text,
                                            promptSpeech: usesPromptSpeech ? prompt.speechTokens : []),
            voice: prompt, onChunk: onChunk)
    }

    /// Streams the tokens `generator` draws for `request` in `voice` (aligned); the LLM stage is a parameter
    /// so a test can stand in for it.
    func stream<Generator: SpeechTokenGenerator & Sendable>(
        _ generator: Generator, request: Generator.Prompt, voice: VoicePrompt, onChunk: ([Float]) throws -> Void
    ) async throws -> [Int] where Generator.Prompt: Sendable {
        try await StreamingSynthesis.stream(
            generator, request: request, into: StreamingSynthesis(flow: flow, vocoder: vocoder, voice: voice, noise: noise),
            overlapping: configuration.overlapsStages, executor: configuration.executor, onChunk: onChunk)
    }

    /// Longest piece of text the LLM reads at once (upstream `split_paragraph`'s token_max_n): tokens for
    /// most text, code points for Chinese; a single sentence longer than this stays whole, as upstream.
    public static let maximumTextTokens = CosyVoiceTextNormalizer.maximumLength

    /// `text` normalised and cut into the pieces synthesised one after another, as upstream's
    /// `text_normalize(text, split=True)` does (see `CosyVoiceTextNormalizer`).
    func pieces(of text: String) throws -> [String] {
        try frontend.pieces(of: text)
    }

    /// Its text normalisation and how streamed chunks attend (`textNormalizationNote`, `streamingAttentionNote`).
    public var diagnostics: String? { textNormalizationNote + "\n" + streamingAttentionNote }

    /// One line saying whether text goes through wetext, and how to turn it on when it does not.
    public var textNormalizationNote: String {
        if frontend.normalizer.wetext != nil { return "text normalisation: wetext grammars (numbers, dates, money spelt out)" }
        return "text normalisation: without wetext (Chinese digits are read as written; English digits are "
            + "spelt out); scripts/setup.sh installs the grammars in \(Self.defaultTextNormalizerFolder.path)"
    }

    /// One line saying how streamed chunks attend: under upstream's chunk mask when the folder's estimator
    /// takes one (`FlowMatching.takesAttentionMask`), else with full attention in every chunk.
    public var streamingAttentionNote: String {
        if flow.takesAttentionMask {
            return "streaming: upstream's 50-frame chunk mask on every chunk but the last (the estimator takes attn_mask)"
        }
        return "streaming: full attention in every chunk (the estimator has no attn_mask input, as in the community "
            + "export), so a join can differ slightly from a whole synthesis"
    }

    static func loadWeText(_ choice: TextNormalization) throws -> WeTextNormalizer? {
        switch choice {
        case .disabled:
            return nil
        case .wetext(let folder):
            return try WeTextNormalizer(folder: folder)
        case .automatic:
            let folder = defaultTextNormalizerFolder
            guard WeTextNormalizer.manifest.isMarkedComplete(folder) else { return nil }
            return try WeTextNormalizer(folder: folder)
        }
    }

    /// The voice folder `id` names (the default voice when `nil`).
    public func voicePrompt(_ id: String?) throws -> VoicePrompt {
        try storedConditioning(id).prompt
    }

    /// The prompt and instruction of installed voice `id` (the default when nil), read from its folder together:
    /// a voice replaced meanwhile is the old or the new one whole, one removed meanwhile is unknown.
    func storedConditioning(_ id: String?) throws -> (prompt: VoicePrompt, instruction: String?) {
        let voice = try self.voice(id)
        guard let entry = try? catalog.voice(voice.id).conditioning, let read = try VoiceCatalog.conditioning(at: entry.folder) else {
            throw SpeechError.unknownVoice(voice.id, engine: engineName, available: voices.map(\.id).filter { $0 != voice.id })
        }
        return read
    }

    /// The instruction voice `id` (the default voice when `nil`) is spoken with, if it has one (see `VoiceCatalog`).
    public func instruction(ofVoice id: String?) throws -> String? {
        try catalog.voice(try voice(id).id).conditioning.instruction
    }

    /// The prompt and instruction `reference` speaks with: an installed voice's (the default when nil)
    /// or a cloned voice's own.
    func conditioning(of reference: VoiceReference?) throws -> (VoicePrompt, instruction: String?) {
        guard case .cloned(let cloned)? = reference else {
            return try storedConditioning(reference?.id)
        }
        _ = try voice(reference)
        guard let conditioning = cloned.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: cloned.voice.id, madeBy: "another engine", engine: engineName)
        }
        return (conditioning.prompt, conditioning.instruction)
    }

    /// How the voice's clip conditions the LLM.
    public enum Mode: Sendable, Equatable {
        /// upstream `inference_zero_shot` (or `inference_instruct2` for a voice with an instruction): the
        /// LLM reads the clip's transcript and speech tokens, then the text.
        case zeroShot
        /// upstream `inference_cross_lingual`: the LLM reads neither the transcript nor the clip's speech
        /// tokens, only `You are a helpful assistant.<|endofprompt|>` and the text, whole; the flow still
        /// takes the clip's timbre. For text in another language than the clip's, and for voices made
        /// without a transcript. A voice's instruction is not used.
        case crossLingual
    }

    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        stream(request, mode: .zeroShot)
    }

    /// The audio of `request`, piece by piece, with the clip conditioning the LLM as `mode` says: each piece
    /// streamed as upstream streams it, or made whole at another speed (see `PieceByPieceSpeech`).
    public func stream(_ request: SynthesisRequest, mode: Mode) -> AsyncThrowingStream<AudioChunk, Error> {
        PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate,
            setup: { [self] in try prompt(for: request, mode: mode) },
            pieces: { [self] _ in
                // Cross-lingual: upstream's length limits count the whole text, prefix included.
                let pieces = mode == .crossLingual ? [Frontend.crossLingualText(request.text)] : try pieces(of: request.text)
                // The cost bound counts the pieces' tokens once here, before any model runs.
                try request.checkCost(units: try pieces.reduce(0) { $0 + (try frontend.tokenizer.encode($1).count) }, unit: "tokens")
                return pieces
            }
        ) { [self] piece, prompt, early in
            let text = try frontend.tokenizer.encode(piece)
            // Every model run is a job on the inference executor: no model loop holds a shared
            // concurrency thread, and cancelling this task stops the run in progress.
            if request.speed == 1 {
                _ = try await runLimit.withPlace {
                    try await streamSynthesis(promptText: prompt.text, text: text, voice: prompt.voice,
                                              usesPromptSpeech: prompt.usesPromptSpeech, onChunk: early)
                }
                return []
            }
            // Upstream changes speed only when synthesising whole: the mel is resampled before HiFT.
            return try await configuration.executor.run(limit: runLimit) { [self] in
                try synthesize(promptText: prompt.text, text: text, voice: prompt.voice,
                               usesPromptSpeech: prompt.usesPromptSpeech, speed: request.speed).audio
            }
        }
    }

    /// What the LLM reads before the text of `request` in `mode`, and the voice.
    struct Prompt: Sendable {
        var voice: VoicePrompt
        /// The ids of the transcript or instruction (none cross-lingual).
        var text: [Int]
        /// Whether the LLM hears the clip's speech tokens.
        var usesPromptSpeech: Bool
    }

    func prompt(for request: SynthesisRequest, mode: Mode) throws -> Prompt {
        let (voice, voiceInstruction) = try conditioning(of: request.voice)
        let mode = request.options["cross_lingual"]?.flag == true ? .crossLingual : mode
        let asked = request.options["instruction"]?.text
        let instruction = mode == .crossLingual ? nil : asked ?? voiceInstruction
        switch mode {
        case .zeroShot:
            if voice.text.isEmpty, instruction == nil {
                throw CosyVoiceError.voiceWithoutTranscript(voice: try self.voice(request.voice).id)
            }
            let text: [Int]
            do {
                text = try frontend.promptTokens(transcript: voice.text, instruction: instruction)
            } catch SpeechError.voiceTextTooLong(_, let count, let unit, let limit) where asked != nil {
                throw SpeechError.invalidOption(name: "instruction", value: asked ?? "",
                                                expected: "an instruction of at most \(limit) \(unit) (it made \(count))")
            } catch SpeechError.voiceTextTooLong(let field, let count, let unit, let limit) {
                // A voice stored before the limit: refused at once, as an upload would be, not paid for.
                throw SpeechError.unusableVoice(try self.voice(request.voice).id, engine: engineName,
                                                problem: "its \(field) is \(count) \(unit), over the \(limit) a voice keeps")
            }
            return Prompt(voice: voice, text: text, usesPromptSpeech: instruction == nil)
        case .crossLingual:
            return Prompt(voice: voice, text: [], usesPromptSpeech: false)
        }
    }
}

extension CosyVoiceSynthesizer {
    /// CosyVoice's options: an instruction for one request, and the cross-lingual mode.
    public static let options: [SpeechOption] = [
        SpeechOption("instruction", .text(maximumCharacters: VoiceClip.maximumInstructionCharacters),
                     summary: "How to speak, read in place of the voice's transcript as upstream's inference_instruct2 reads it "
                        + "(请用广东话表达。 for Cantonese); the voice's own instruction by default."),
        SpeechOption("cross_lingual", .flag,
                     summary: "Read the text without the voice's transcript and speech tokens (upstream's inference_cross_lingual), "
                        + "for text in another language than the clip's; off by default."),
    ]
}

/// What a cloned CosyVoice voice conditions on: the clip's prompt, and the instruction it is spoken
/// with in place of the transcript, if any (a dialect's, say).
public struct CosyVoiceConditioning: Sendable {
    public var prompt: VoicePrompt
    public var instruction: String?

    public init(prompt: VoicePrompt, instruction: String? = nil) {
        self.prompt = prompt
        self.instruction = instruction
    }
}

extension CosyVoiceSynthesizer {
    /// The engine speaking every request in `mode`, behind the shared protocol (so the streaming pipeline
    /// and the command line can use cross-lingual cloning like any engine).
    public func speaking(in mode: Mode) -> some SpeechSynthesizer {
        ModeSpeaker(engine: self, mode: mode)
    }
}

/// `CosyVoiceSynthesizer.speaking(in:)`: the engine with its requests' mode fixed.
struct ModeSpeaker: SpeechSynthesizer {
    let engine: CosyVoiceSynthesizer
    let mode: CosyVoiceSynthesizer.Mode

    var engineName: String { engine.engineName }
    var sampleRate: Int { engine.sampleRate }
    var voices: [Voice] { engine.voices }
    var diagnostics: String? { engine.diagnostics }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        engine.stream(request, mode: mode)
    }
}

extension CosyVoiceSynthesizer.Configuration {
    /// The token counts `speechTokens` may force: at most 4,000 s of speech.
    public static let speechTokenRange = 1...100_000

    /// The count `speechTokensVariable` names in `environment`, nil when it is unset or empty.
    public static func speechTokens(in environment: [String: String]) throws -> Int? {
        guard let value = environment[speechTokensVariable], !value.isEmpty else { return nil }
        guard let count = Int(value), speechTokenRange.contains(count) else {
            throw CosyVoiceError.invalidSpeechTokens(value: value)
        }
        return count
    }
}
