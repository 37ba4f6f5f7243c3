import ChorusFiles
import ChorusModels
import ChorusONNX
import ChorusSpeech
import Foundation

/// One text-to-speech engine: what it is, what it can do, the models it reads, its voices on disk and how
/// to load it. This is the one description of an engine: the command line, `chorus models`, the server,
/// `/v1/models` and the playground all read `Engine.all`, so an engine registered here (`register(_:)`) is
/// offered everywhere.
public struct Engine: Sendable, Identifiable, CustomStringConvertible {
    /// What an engine can do beyond speaking text in its installed voices.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Audio comes piece by piece while the rest is made: a long text's first audio comes after its
        /// first piece, not after all of it.
        public static let streaming = Capabilities(rawValue: 1 << 0)
        /// Speaks in a voice made from a clip (`VoiceCloning`); `Engine.cloning` says what the clip needs.
        public static let voiceCloning = Capabilities(rawValue: 1 << 1)
        /// Reads a request's text in the language it names (`SynthesisRequest.language`, `--language`).
        public static let languageSelection = Capabilities(rawValue: 1 << 2)
        /// A cloned voice can carry an instruction (a dialect, a speaking style) the model reads instead of
        /// the clip's transcript (`chorus voice add --dialect/--instruction`).
        public static let instructions = Capabilities(rawValue: 1 << 3)

        /// The names shown to people and in `/v1/models`, in a fixed order.
        public var names: [String] {
            [(Self.streaming, "streaming"), (.voiceCloning, "voice-cloning"), (.languageSelection, "language-selection"),
             (.instructions, "instructions")].filter { contains($0.0) }.map(\.1)
        }
    }

    /// What cloning a voice asks of the clip, known without loading the engine (forms ask for a transcript only
    /// where it is read).
    public struct Cloning: Sendable, Hashable {
        /// Whether the clip's transcript is read.
        public var needsTranscript: Bool
        /// For an engine that reads the transcript but can make a voice without it, what such a voice can do
        /// ("speaks only cross-lingually"); nil where the transcript is required or not read.
        public var withoutTranscript: String?
        /// Clip lengths accepted, in seconds.
        public var clipSeconds: ClosedRange<Double>
        /// The instructions the engine knows by name (CosyVoice's Chinese dialects), which every surface offers
        /// as a dialect of a new voice; empty for an engine that takes none.
        public var dialects: [NamedInstruction]

        public init(needsTranscript: Bool, withoutTranscript: String? = nil, clipSeconds: ClosedRange<Double>,
                    dialects: [NamedInstruction] = []) {
            self.needsTranscript = needsTranscript
            self.withoutTranscript = withoutTranscript
            self.clipSeconds = clipSeconds
            self.dialects = dialects
        }

        /// The dialect `name` names, by any of its names in any case; nil when there is none.
        public func dialect(named name: String) -> NamedInstruction? {
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            return dialects.first { $0.names.contains { $0.lowercased() == key } }
        }
    }

    /// An instruction a voice can be given by name: what the engine reads, and the language its voices speak.
    public struct NamedInstruction: Sendable, Hashable {
        /// Its names, the first the one surfaces show (`cantonese`, `广东话`).
        public var names: [String]
        /// What the engine reads in place of the clip's transcript.
        public var instruction: String
        /// The BCP 47 tag its voices are listed with.
        public var language: String

        public init(names: [String], instruction: String, language: String) {
            precondition(!names.isEmpty, "a named instruction has a name")
            self.names = names
            self.instruction = instruction
            self.language = language
        }

        /// The name surfaces show.
        public var name: String { names[0] }
    }

    /// What a load is asked for.
    public struct LoadOptions: Sendable {
        /// The model to read (see `modelDescription`); the default model when nil.
        public var model: URL?
        /// The language text is read in when a request names none (engines with `.languageSelection`).
        public var language: String?
        /// The one request the engine will serve (a command writing one file), so it can make only the
        /// sessions that request's calls use; nil for an engine that serves many.
        public var servingOnly: SynthesisRequest?

        public init(model: URL? = nil, language: String? = nil, servingOnly: SynthesisRequest? = nil) {
            self.model = model
            self.language = language
            self.servingOnly = servingOnly
        }
    }

    /// The short name used on the command line and in requests ("kokoro"); lower case.
    public let id: String
    /// The model's own name, for people.
    public let name: String
    /// The output sample rate in Hz of its default voice; a voice with a rate of its own says so
    /// (`Voice.sampleRate`, Piper's voices).
    public let sampleRate: Int
    /// What it can do; every surface reads these.
    public let capabilities: Capabilities
    /// What cloning asks of a clip; nil for an engine that does not clone.
    public let cloning: Cloning?
    /// The models `chorus models` offers for it, by name, its default model first (`chatterbox`, then
    /// `chatterbox:fp16`, ...).
    public let models: [ModelCatalog.Entry]
    /// A model named by a variant no list could hold (`piper:en_US-lessac-medium`); nil when it has none.
    let modelVariant: (@Sendable (String) throws -> ModelManifest)?
    /// What `load(from:)` accepts, in a few words ("a Kokoro model folder").
    public let modelDescription: String
    /// Whether each installed voice's `language` is the language it speaks natively, known from the model
    /// itself (Piper's voice config, Kokoro's voice names), so `VoiceChoice` may pick the engine for a text in
    /// that language. False for engines whose voices are clones: their language is the clip's, as given or
    /// guessed, and they are never chosen by language.
    public let voicesDeclareLanguage: Bool
    /// Its own options beyond text, voice, language and speed (see `SpeechOption`): every surface offers these.
    public let options: [SpeechOption]
    /// The speaking rates it takes (`SynthesisRequest.speed`); one value for an engine with no rate control.
    public let speeds: ClosedRange<Float>
    private let defaultModelLocation: @Sendable () -> URL
    private let voiceLister: @Sendable (URL?) throws -> [Voice]
    private let unusableVoiceLister: @Sendable (URL?) -> [UnusableVoice]
    private let loader: @Sendable (LoadOptions) async throws -> any SpeechSynthesizer
    private let clonerLoader: (@Sendable (URL?) async throws -> any VoiceCloner)?

    /// An engine.
    /// - Parameters:
    ///   - id: its short name, lower case, unique among the engines.
    ///   - models: its models by name, the default first; at least one.
    ///   - modelVariant: the model a name `id:variant` stands for, where the variants cannot be listed.
    ///   - defaultModel: where its default model is (a folder or a file, as `load` reads it).
    ///   - installedVoices: its voices for a model (the default when nil), read from disk without loading.
    ///   - unusableVoices: its voices on disk that cannot be used, with why.
    ///   - voicesDeclareLanguage: its voices' `language` is what they speak natively (see the property).
    ///   - options: its own options, which its synthesizer reads from `SynthesisRequest.options`.
    ///   - speeds: the speaking rates it takes.
    ///   - cloner: what makes and stores its voices for a model (the default when nil) without the rest of the
    ///     engine, where that is lighter than `load`; nil when cloning needs the loaded engine.
    ///   - load: the engine loaded. Making sessions blocks: run it on the inference executor
    ///     (`InferenceExecutor.shared.run`), as the built-in engines do, so no shared concurrency thread waits.
    public init(id: String, name: String, sampleRate: Int, capabilities: Capabilities, cloning: Cloning? = nil,
                models: [ModelCatalog.Entry], modelVariant: (@Sendable (String) throws -> ModelManifest)? = nil,
                modelDescription: String, defaultModel: @escaping @Sendable () -> URL,
                installedVoices: @escaping @Sendable (URL?) throws -> [Voice],
                unusableVoices: @escaping @Sendable (URL?) -> [UnusableVoice] = { _ in [] },
                voicesDeclareLanguage: Bool = false, options: [SpeechOption] = [],
                speeds: ClosedRange<Float> = SynthesisRequest.speeds,
                cloner: (@Sendable (URL?) async throws -> any VoiceCloner)? = nil,
                load: @escaping @Sendable (LoadOptions) async throws -> any SpeechSynthesizer) {
        precondition(!models.isEmpty, "an engine has at least its default model")
        self.id = id.lowercased()
        self.name = name
        self.sampleRate = sampleRate
        self.capabilities = cloning == nil ? capabilities.subtracting(.voiceCloning) : capabilities.union(.voiceCloning)
        self.cloning = cloning
        self.models = models
        self.modelVariant = modelVariant
        self.modelDescription = modelDescription
        self.voicesDeclareLanguage = voicesDeclareLanguage
        self.options = options
        self.speeds = speeds
        defaultModelLocation = defaultModel
        voiceLister = installedVoices
        unusableVoiceLister = unusableVoices
        clonerLoader = cloner
        loader = load
    }

    public var description: String { id }

    /// The files its default model is made of, their sizes and hashes where known, source and licence.
    public var manifest: ModelManifest { models[0].manifest }

    /// The model `load()` reads when given none.
    public var defaultModel: URL { defaultModelLocation() }

    /// Loads the engine (the built-in ones on the inference executor, so creating their sessions never blocks a
    /// shared concurrency thread). A language is refused by an engine without `.languageSelection`.
    public func load(_ options: LoadOptions = LoadOptions()) async throws -> any SpeechSynthesizer {
        if options.language != nil, !capabilities.contains(.languageSelection) {
            throw EngineError.languageNotSelectable(engine: id, selecting: Self.all.filter {
                $0.capabilities.contains(.languageSelection)
            }.map(\.id))
        }
        return try await loader(options)
    }

    /// `load(_:)` from `model` (the default model when nil).
    public func load(from model: URL? = nil, language: String? = nil,
                     servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        try await load(LoadOptions(model: model, language: language, servingOnly: request))
    }

    /// The voices installed for `model` (the default model when nil), read from disk without loading the
    /// engine's sessions; throws as loading would when the model's files are not there.
    public func installedVoices(from model: URL? = nil) throws -> [Voice] {
        try voiceLister(model)
    }

    /// The voices installed for `model` that cannot be used (damaged or incomplete), with why; read from disk.
    public func unusableVoices(from model: URL? = nil) -> [UnusableVoice] {
        unusableVoiceLister(model)
    }

    /// This engine reading `model` wherever it would read its default model (a server or a test serving a model
    /// folder of its own).
    public func using(model: URL) -> Engine { using(model: model, as: nil) }

    /// `using(model:)`, named as `variant` when given: the engine id is the model's name (`chatterbox:q4f16`)
    /// and its voices say so, so every surface tells it from the default model's engine.
    private func using(model: URL, as variant: ModelCatalog.Entry?) -> Engine {
        let (voiceLister, unusableVoiceLister, loader) = (voiceLister, unusableVoiceLister, loader)
        let id = variant?.name ?? self.id
        let relabel: @Sendable ([Voice]) -> [Voice] = { voices in
            voices.map { voice in
                var voice = voice
                voice.engine = id
                return voice
            }
        }
        var cloner: (@Sendable (URL?) async throws -> any VoiceCloner)?
        if let clonerLoader { cloner = { try await clonerLoader($0 ?? model) } }
        return Engine(id: id, name: variant.map { "\(name) (\($0.name.split(separator: ":").last ?? ""))" } ?? name,
                      sampleRate: sampleRate, capabilities: capabilities, cloning: cloning,
                      models: variant.map { [$0] } ?? models, modelVariant: modelVariant, modelDescription: modelDescription,
                      defaultModel: { model },
                      installedVoices: { relabel(try voiceLister($0 ?? model)) },
                      unusableVoices: { unusableVoiceLister($0 ?? model) },
                      voicesDeclareLanguage: voicesDeclareLanguage, options: options, speeds: speeds,
                      cloner: cloner,
                      load: { options in
                          var options = options
                          options.model = options.model ?? model
                          return try await loader(options)
                      })
    }

    /// `given` checked against `options`: a name it does not declare or a value outside an option's kind is
    /// `SpeechError.unknownOption` or `.invalidOption`, which every surface shows as the caller's mistake.
    public func checkedOptions(_ given: [String: SpeechOptionValue]) throws -> [String: SpeechOptionValue] {
        try options.checked(given, engine: id)
    }

    /// `load(from:)` for an engine that clones voices; throws naming the engines that do for one that cannot.
    public func loadCloning(from model: URL? = nil) async throws -> any VoiceCloning {
        guard cloning != nil, let engine = try await load(from: model) as? any VoiceCloning else {
            throw EngineError.cannotClone(engine: id, cloning: Self.all.filter { $0.cloning != nil }.map(\.id))
        }
        return engine
    }

    /// What makes, stores and removes voices for `model` (the default when nil): the engine's own cloner where
    /// it has one lighter than the engine (CosyVoice's loads only its two encoders), else `loadCloning(from:)`.
    public func loadCloner(from model: URL? = nil) async throws -> any VoiceCloner {
        guard cloning != nil, let clonerLoader else { return try await loadCloning(from: model) }
        return try await clonerLoader(model)
    }
}

extension Engine {
    private static let registry = Locked<[Engine]>(builtIn)

    /// The built-in engines, the default first, then those registered, in order: each once, without its variants.
    public static var registered: [Engine] { registry.withLock { $0 } }

    /// Every engine: the built-in ones, the default first, then those registered, in order, each followed by its
    /// other listed models installed in the process's model store (`all(in:)`).
    public static var all: [Engine] { all(in: .current) }

    /// Every engine, each followed by its other listed models that are installed in `store` (marked complete),
    /// as engines of their own named by the model (`chatterbox:q4f16`, reading `<store>/chatterbox-q4f16`), so a
    /// pulled variant is chosen by name wherever an engine is: `--engine`, `chorus voices`, `/v1/models`, a
    /// request's `model`, the playground.
    public static func all(in store: ModelStore) -> [Engine] {
        registered.flatMap { engine in
            [engine] + engine.models.dropFirst().compactMap { entry in
                let folder = store.folder(for: entry.manifest)
                return entry.manifest.isMarkedComplete(folder) ? engine.using(model: folder, as: entry) : nil
            } + engine.pulledVariants(in: store)
        }
    }

    /// The variants no list could hold (`piper:en_US-lessac-medium`) that are installed in `store`: each folder
    /// `<id>-<variant>` whose manifest (`modelVariant`) names it and that is marked complete, as an engine reading
    /// that folder, in the folders' order.
    private func pulledVariants(in store: ModelStore) -> [Engine] {
        guard let modelVariant else { return [] }
        let prefix = id + "-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.root.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.sorted().compactMap { name in
            let variant = String(name.dropFirst(prefix.count))
            guard let manifest = try? modelVariant(variant), manifest.id == name else { return nil }
            let folder = store.folder(for: manifest)
            guard manifest.isMarkedComplete(folder) else { return nil }
            return using(model: folder, as: ModelCatalog.Entry(name: "\(id):\(variant)", manifest: manifest))
        }
    }

    /// Adds `engine` to `all`, so the command line, `chorus models`, the server and the playground offer
    /// it; throws when its id is taken or is not a plain lower-case name.
    public static func register(_ engine: Engine) throws {
        guard !engine.id.isEmpty, engine.id.unicodeScalars.allSatisfy({
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }) else {
            throw EngineError.invalidEngineID(engine.id)
        }
        try registry.withLock { engines in
            guard !engines.contains(where: { $0.id == engine.id }) else { throw EngineError.engineExists(engine.id) }
            engines.append(engine)
        }
    }

    /// The engine called `id` (any case); throws naming the known ones otherwise.
    public static func named(_ id: String) throws -> Engine {
        let engines = all
        guard let engine = engines.first(where: { $0.id == id.lowercased() }) else {
            throw EngineError.unknownEngine(id, known: engines.map(\.id))
        }
        return engine
    }
}
