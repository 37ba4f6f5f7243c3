import ChorusModels
import ChorusONNX
import ChorusSpeech
import ChorusText
import Foundation

/// Chatterbox Turbo as upstream's `ChatterboxTurboTTS.generate` speaks, on the export's graphs, with the seed
/// app's engine behaviour around it: text cut into chunks of at most 300 characters (the first shorter, so
/// audio starts sooner), each chunk spoken alone and kept in a chunk cache keyed by its text and voice, voices
/// read once and kept, a status stream, and one shared model load however many calls arrive first.
///
/// Each chunk's draws are seeded with the configuration's seed, so a chunk sounds the same wherever it sits and
/// a cached chunk is what a fresh synthesis would make. Every model run happens on the inference executor.
public final class ChatterboxSynthesizer: SpeechSynthesizer, @unchecked Sendable {
    /// What the engine is doing.
    public enum Status: Sendable, Equatable {
        case idle, loading, ready, synthesizing
        case failed(String)
    }

    /// How text is chunked and tokens drawn.
    public struct Configuration: Sendable {
        public var sampling: ChatterboxSampling
        /// The seed of every chunk's draws.
        public var seed: UInt64
        /// The longest chunk, in characters (the seed's 300).
        public var chunkCharacters: Int
        /// The longest first chunk, so the first audio comes sooner.
        public var firstChunkCharacters: Int
        /// Chunks the cache keeps.
        public var chunkCacheLimit: Int
        /// upstream's `max_gen_len`.
        public var maximumNewTokens: Int

        public init(sampling: ChatterboxSampling = .defaults, seed: UInt64 = 0, chunkCharacters: Int = 300,
                    firstChunkCharacters: Int = 120, chunkCacheLimit: Int = 64,
                    maximumNewTokens: Int = LanguageModel.maximumNewTokens) {
            self.sampling = sampling
            self.seed = seed
            self.chunkCharacters = chunkCharacters
            self.firstChunkCharacters = firstChunkCharacters
            self.chunkCacheLimit = chunkCacheLimit
            self.maximumNewTokens = maximumNewTokens
        }

        /// The environment variable that sets `maximumNewTokens` for the engines the command line and the
        /// server make: a whole number from 0 to upstream's 1,000. For measurements that must draw the same
        /// number of speech tokens as another implementation (bench/realsize/chatterbox.py, on a model that
        /// never draws the stop token); a real model stops where its speech ends, well within upstream's limit.
        public static let maximumNewTokensVariable = "CHORUS_CHATTERBOX_MAX_NEW_TOKENS"

        /// The defaults, with `maximumNewTokens` from `maximumNewTokensVariable` when `environment` sets it;
        /// throws `ChatterboxError.invalidSetting` naming the variable for any other value.
        public init(environment: [String: String]) throws {
            self.init()
            guard let text = environment[Self.maximumNewTokensVariable] else { return }
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)), (0...LanguageModel.maximumNewTokens).contains(count)
            else {
                throw ChatterboxError.invalidSetting(variable: Self.maximumNewTokensVariable, value: text,
                                                     expected: "a whole number from 0 to \(LanguageModel.maximumNewTokens)")
            }
            maximumNewTokens = count
        }
    }

    /// The loaded stages.
    public struct Stages: Sendable {
        public let text: ChatterboxTextEncoder
        public let model: LanguageModel
        public let decoder: ConditionalDecoder
        /// What one call of the graphs holds (read from them, else the published export's).
        public let capacity: ChatterboxCapacity
    }

    public let engineName = "chatterbox"
    /// The speeds it speaks at: its own pace only (upstream's Turbo has no rate control).
    public static let speeds: ClosedRange<Float> = 1...1
    public let sampleRate = ConditionalDecoder.sampleRate
    public let folder: ChatterboxModelFolder
    public let configuration: Configuration
    public let chunkCache: ChunkCache
    /// The engine's status; late subscribers read the newest value first.
    public let status = StatusBroadcast<Status>(.idle)
    private let runLimit = RunLimit(maximum: 1)
    private let lock = NSLock()
    private var loading: Task<Stages, Error>?
    /// The installed voices as read, each read again only when its folder changes (its spoken chunks dropped then).
    private let storedVoices: VoiceStore.Cache<VoiceConditioning>
    /// The speech encoder, loaded by the first clone (speaking never reads it).
    let speechEncoder: LazySession
    private(set) var loadCount = 0

    /// The default model folder: `<models root>/chatterbox-fp32` (see `ModelStore`).
    public static var defaultFolder: URL { ModelStore.current.folder(for: manifest) }

    /// The voices installed for the model folder `folder` (the default one when nil), without loading models.
    public static func installedVoices(folder: URL? = nil) throws -> [Voice] {
        try installed(in: ChatterboxModelFolder(url: folder ?? defaultFolder).voices)
    }

    /// The voices installed for the model folder `folder` (the default one when nil) that cannot be used, with why.
    public static func unusableVoices(folder: URL? = nil) -> [UnusableVoice] {
        guard let models = try? ChatterboxModelFolder(url: folder ?? defaultFolder) else { return [] }
        return contents(of: models.voices).unusable
    }

    /// The store of the voices in `voices`.
    public static func store(_ voices: URL) -> VoiceStore { VoiceStore(folder: voices, engine: "chatterbox") }

    /// The files a voice folder holds: the speech encoder's four outputs.
    static let voiceFiles = VoiceConditioning.files.map { $0 + ".npy" }

    /// The voices in `voices`: a folder missing one of the speech encoder's four outputs, or holding one of the
    /// wrong shape, is unusable.
    static func contents(of voices: URL) -> VoiceStore.Contents<Voice> {
        let read = store(voices).contents(requiring: voiceFiles, stored)
        return VoiceStore.Contents(voices: read.voices.map(\.voice), unusable: read.unusable)
    }

    /// The voice in `folder`, called `id`.
    @Sendable static func stored(id: String, folder: URL) throws -> StoredVoice<VoiceConditioning> {
        StoredVoice(voice: Voice(id: id, engine: "chatterbox", language: "en", gender: .unknown, summary: "cloned from a clip"),
                    conditioning: try VoiceConditioning(folder: folder))
    }

    static func installed(in voices: URL) -> [Voice] { contents(of: voices).voices }

    /// The engine over the model folder `folder` (the default one when nil): the folder is checked now, the
    /// graphs are loaded by the first call that needs them (`prepare`).
    public init(folder: URL? = nil, configuration: Configuration = Configuration()) throws {
        self.folder = try ChatterboxModelFolder(url: folder ?? Self.defaultFolder)
        self.configuration = configuration
        speechEncoder = LazySession(modelPath: self.folder.path(ChatterboxModelFolder.speechEncoder))
        let chunkCache = ChunkCache(limit: configuration.chunkCacheLimit)
        self.chunkCache = chunkCache
        storedVoices = VoiceStore.Cache(store: Self.store(self.folder.voices), requiring: Self.voiceFiles,
                                        changed: { chunkCache.removeAll(voice: $0) }, read: Self.stored)
    }

    public var voices: [Voice] { storedVoices.contents.voices.map(\.voice) }
    public var unusableVoices: [UnusableVoice] { storedVoices.contents.unusable }

    /// Forgets what was read and spoken of voice `id` (after it is replaced or removed).
    public func forgetVoice(_ id: String) {
        storedVoices.forget(id)
        chunkCache.removeAll(voice: id)
    }

    /// Loads the stages once: concurrent first callers wait for the same load; a failed load is tried again
    /// by the next call.
    @discardableResult
    public func prepare() async throws -> Stages {
        let task: Task<Stages, Error> = lock.withLock {
            if let loading { return loading }
            let (folder, configuration, status) = (folder, configuration, status)
            loadCount += 1
            let task = Task {
                status.send(.loading)
                do {
                    let stages = try await InferenceExecutor.shared.run {
                        Stages(
                            text: try ChatterboxTextEncoder(folder: folder.url),
                            model: try LanguageModel(
                                embed: InferenceSession(modelPath: folder.path(ChatterboxModelFolder.embedTokens)),
                                language: InferenceSession(modelPath: folder.path(ChatterboxModelFolder.languageModel)),
                                sampling: configuration.sampling, maximumNewTokens: configuration.maximumNewTokens),
                            decoder: try ConditionalDecoder(
                                session: InferenceSession(modelPath: folder.path(ChatterboxModelFolder.conditionalDecoder))),
                            capacity: try ChatterboxCapacity(folder: folder))
                    }
                    status.send(.ready)
                    return stages
                } catch {
                    status.send(.failed("\(error)"))
                    throw error
                }
            }
            loading = task
            return task
        }
        do {
            return try await task.value
        } catch {
            lock.withLock { if loading == task { loading = nil } }
            throw error
        }
    }

    /// The conditioning of `reference` (the first installed voice when nil), read once and kept until its
    /// folder changes.
    public func conditioning(_ reference: VoiceReference?) throws -> (id: String, voice: VoiceConditioning) {
        if case .cloned(let cloned)? = reference {
            guard cloned.voice.engine == engineName, let conditioning = cloned.conditioning as? VoiceConditioning else {
                throw SpeechError.clonedVoiceOfAnotherEngine(voice: cloned.voice.id, madeBy: cloned.voice.engine, engine: engineName)
            }
            return ("cloned:\(cloned.hashValue)", conditioning)
        }
        let stored = try storedVoices.voice(reference?.id)
        return (stored.voice.id, stored.conditioning)
    }

    /// The chunks `text` is spoken in, at most `chunkCharacters` each (`longest` when given). For the whole
    /// text, the seed's chunks, the first at most `firstChunkCharacters`; for the first audio, `PieceRamp`'s:
    /// the first sentence, or its first clauses up to `firstChunkCharacters` when longer, then chunks each at
    /// most as long as all the text before them, so that each is ready before the audio before it has played
    /// out while a second of speech takes at most half a second to make.
    public func chunks(of text: String, priority: SynthesisRequest.Priority = .wholeText, longest: Int? = nil) -> [String] {
        let longest = min(longest ?? configuration.chunkCharacters, configuration.chunkCharacters)
        let first = min(configuration.firstChunkCharacters, longest)
        if priority == .firstAudio {
            return PieceRamp(firstLength: first, growth: 1, maxLength: longest).split(text)
                .map { PythonStringRules.strip($0) }
                .filter { !$0.isEmpty }
        }
        var pieces = ChatterboxTextEncoder.chunks(of: text, maxCharacters: longest)
        if let head = pieces.first, head.count > first {
            pieces.replaceSubrange(0..<1, with: ChatterboxTextEncoder.chunks(of: head, maxCharacters: first))
        }
        return pieces
    }

    /// Characters a chunk may have for each speech token the graphs leave room to draw: the seed's proportion,
    /// 300 characters to upstream's 1,001 draws (40 s at 25 tokens a second), twice what prose read at about
    /// 15 characters a second needs.
    public static let charactersPerDraw = 0.3

    /// The chunks `text` is spoken in with `voice` on `stages`' graphs, each fitting them, found before any model
    /// runs: when the decoder leaves the voice fewer draws than upstream's 1 + `maximumNewTokens`, chunks of at
    /// most `charactersPerDraw` characters for each of them (on the generated models, 44 characters for 147
    /// draws; the published export leaves room for all 1,001, so its chunks stay `chunkCharacters`), and each cut again
    /// until its text ids fit the tokenizer's `model_max_length` (so none is dropped) and T3's positions leave
    /// room to draw. Throws `ChatterboxError.voiceTooLong` when the voice leaves the decoder no room.
    public func chunks(of text: String, priority: SynthesisRequest.Priority, voice: VoiceConditioning,
                       stages: Stages) throws -> [String] {
        let capacity = stages.capacity
        let longestDraws = 1 + stages.model.maximumNewTokens
        let room = capacity.decoderRoom(voice)
        guard room >= 1 else {
            throw ChatterboxError.voiceTooLong(tokens: voice.audioTokens.count, limit: capacity.decoderTokens)
        }
        let longest = room >= longestDraws ? configuration.chunkCharacters : max(1, Int(Double(room) * Self.charactersPerDraw))
        func fitted(_ chunk: String) throws -> [String] {
            let count = try stages.text.textTokenCount(for: chunk)
            if count <= stages.text.maximumTextTokens ?? .max,
               capacity.draws(textIDs: count + 1, voice: voice, longest: longestDraws) >= 1 {
                return [chunk]
            }
            guard chunk.count > 1 else {
                throw ChatterboxError.promptTooLong(tokens: voice.conditioningLength + count + 1, limit: capacity.positions)
            }
            return try ChatterboxTextEncoder.chunks(of: chunk, maxCharacters: chunk.count / 2).flatMap(fitted)
        }
        return try chunks(of: text, priority: priority, longest: longest).flatMap(fitted)
    }

    /// One chunk spoken as upstream's `generate` does (without the watermark), or its kept audio; its draws
    /// end where the decoder or T3's positions would overflow (see `chunks(of:priority:voice:stages:)`).
    func speak(_ chunk: String, voiceID: String, voice: VoiceConditioning, stages: Stages) throws -> [Float] {
        let key = ChunkCache.Key(text: chunk, voice: voiceID)
        if let kept = chunkCache.audio(for: key) { return kept }
        let ids = try stages.text.ids(for: chunk)
        var model = stages.model
        let draws = stages.capacity.draws(textIDs: ids.count, voice: voice, longest: 1 + model.maximumNewTokens)
        guard draws >= 1 else {
            throw ChatterboxError.promptTooLong(tokens: voice.conditioningLength + ids.count, limit: stages.capacity.positions)
        }
        model.maximumNewTokens = draws - 1
        let tokens = try model.generate(.init(voice: voice, ids: ids, seed: configuration.seed)) { _ in
            try InferenceExecutor.checkCancellation()
        }
        try InferenceExecutor.checkCancellation()
        let audio = try stages.decoder.decode(tokens, voice: voice)
        chunkCache.store(audio, for: key)
        return audio
    }

    /// The audio of `request`, a chunk of text per model call, one after another (see `PieceByPieceSpeech`);
    /// the status is `synthesizing` while a chunk is made.
    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        PieceByPieceSpeech.stream(
            request, sampleRate: sampleRate, speeds: Self.speeds,
            setup: { [self] in
                let (id, voice) = try conditioning(request.voice)
                let stages = try await prepare()
                // A voice stored before prompts were fitted at cloning is fitted here the same way.
                return (id: id, voice: stages.capacity.fitted(voice), stages: stages)
            },
            pieces: { [self] setup in
                try request.checkCost(units: setup.stages.text.textTokenCount(for: request.text), unit: "tokens")
                return try chunks(of: request.text, priority: request.priority, voice: setup.voice, stages: setup.stages)
            }
        ) { [self] chunk, setup, _ in
            status.send(.synthesizing)
            defer { status.send(.ready) }
            return try await InferenceExecutor.shared.run(limit: runLimit) { [self] in
                try speak(chunk, voiceID: setup.id, voice: setup.voice, stages: setup.stages)
            }
        }
    }
}
