import ChorusChatterbox
import ChorusCosyVoice
import ChorusKokoro
import ChorusModels
import ChorusNeuTTS
import ChorusONNX
import ChorusPiper
import ChorusSpeech
import Foundation

/// One text-to-speech engine Chorus can load: what it is, what it can do, where its model lives by
/// default, and how to load it. The command line and the server find engines here, by id.
public struct Engine: Sendable, Identifiable, CustomStringConvertible {
    /// What an engine can do beyond speaking text in its installed voices.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Audio comes piece by piece while the rest is made.
        public static let streaming = Capabilities(rawValue: 1 << 0)
        /// Speaks in a voice made from a clip (`VoiceCloning`).
        public static let voiceCloning = Capabilities(rawValue: 1 << 1)
        /// Speaks a request's text in the language it names (`SynthesisRequest.language`).
        public static let languageSelection = Capabilities(rawValue: 1 << 2)
        /// Voices can carry an instruction (a dialect, a speaking style).
        public static let instructions = Capabilities(rawValue: 1 << 3)
    }

    /// The short name used on the command line and in requests ("kokoro").
    public let id: String
    /// The model's own name, for people.
    public let name: String
    /// Output sample rate in Hz.
    public let sampleRate: Int
    public let capabilities: Capabilities
    /// The files its default model is made of, their sizes and hashes where known, source and licence.
    public var manifest: ModelManifest {
        switch id {
        case "kokoro": KokoroSynthesizer.manifest
        case "piper": PiperSynthesizer.manifest
        case "neutts": NeuTTSSynthesizer.manifest
        case "chatterbox": ModelManifest.chatterbox(.fp32)
        default: CosyVoiceSynthesizer.manifest
        }
    }
    /// The model `load()` reads when given none.
    public let defaultModel: URL
    /// What `load(from:)` accepts, in a few words ("a Kokoro model folder").
    public let modelDescription: String
    private let voiceLister: @Sendable (URL?) throws -> [Voice]
    private var unusableVoiceLister: @Sendable (URL?) -> [UnusableVoice] = { _ in [] }
    private let loader: @Sendable (URL?, String?, SynthesisRequest?) throws -> any SpeechSynthesizer

    public var description: String { id }

    /// Loads the engine from `model` (see `modelDescription`; the default model when nil) on the
    /// inference executor, so creating its sessions never blocks a shared concurrency thread.
    /// `language` is the language text is read in when a request names none (engines with
    /// `.languageSelection`; others refuse it). With `servingOnly`, the engine will serve that request
    /// and no other (a command writing one file): Kokoro and Piper then make only the sessions its
    /// calls use (`PieceParallelism.forOnly(_:pieces:)`).
    public func load(from model: URL? = nil, language: String? = nil,
                     servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        if language != nil, !capabilities.contains(.languageSelection) {
            throw EngineError.languageNotSelectable(engine: id)
        }
        let loader = loader
        return try await InferenceExecutor.shared.run { try loader(model, language, request) }
    }

    /// The voices installed for `model` (the default model when nil), read from disk without loading
    /// the engine's sessions; throws as loading would when the model's files are not there.
    public func installedVoices(from model: URL? = nil) throws -> [Voice] {
        try voiceLister(model)
    }

    /// The voices installed for `model` that cannot be used (damaged or incomplete), with why; read from disk.
    public func unusableVoices(from model: URL? = nil) -> [UnusableVoice] {
        unusableVoiceLister(model)
    }

    /// `load(from:)` for an engine that clones voices; throws for one that cannot.
    public func loadCloning(from model: URL? = nil) async throws -> any VoiceCloning {
        guard capabilities.contains(.voiceCloning), let engine = try await load(from: model) as? any VoiceCloning else {
            throw EngineError.cannotClone(engine: id, cloning: Engine.all.filter { $0.capabilities.contains(.voiceCloning) }.map(\.id))
        }
        return engine
    }
}

extension Engine {
    /// Kokoro-82M: 24 kHz, a style vector per voice, text read in any espeak-ng language.
    public static let kokoro = Engine(
        id: "kokoro", name: "Kokoro-82M", sampleRate: 24_000, capabilities: [.streaming, .languageSelection],
        defaultModel: ModelStore.current.folder(for: KokoroSynthesizer.manifest), modelDescription: "a Kokoro model folder",
        voiceLister: { model in
            try model.map { try KokoroSynthesizer.installedVoices(files: .init(folder: $0)) } ?? KokoroSynthesizer.installedVoices()
        }
    ) { model, language, request in
        try KokoroSynthesizer(files: KokoroSynthesizer.Files(folder: model ?? ModelStore.current.folder(for: KokoroSynthesizer.manifest)),
                              espeakVoice: language ?? "en-us", parallelism: request.map(KokoroSynthesizer.parallelism(servingOnly:)))
    }

    /// Piper: one VITS voice per `.onnx` file with its `.onnx.json`.
    public static let piper = Engine(
        id: "piper", name: "Piper", sampleRate: 22_050, capabilities: [.streaming],
        defaultModel: PiperSynthesizer.defaultModel(),
        modelDescription: "a Piper voice's .onnx file (its .onnx.json beside it)",
        voiceLister: { model in try PiperSynthesizer.installedVoices(modelPath: model) }
    ) { model, _, request in
        let parallelism = try request.map(PiperSynthesizer.parallelism(servingOnly:))
        return try PiperSynthesizer(modelPath: model ?? PiperSynthesizer.defaultModel(), parallelism: parallelism)
    }

    /// CosyVoice 3: zero-shot voice cloning from a clip and its transcript, dialect instructions.
    public static let cosyvoice = Engine(
        id: "cosyvoice", name: "CosyVoice 3", sampleRate: 24_000, capabilities: [.streaming, .voiceCloning, .instructions],
        defaultModel: CosyVoiceSynthesizer.defaultFolder, modelDescription: "a CosyVoice 3 model folder",
        voiceLister: { model in try CosyVoiceSynthesizer.installedVoices(folder: model) },
        unusableVoiceLister: { model in CosyVoiceSynthesizer.unusableVoices(folder: model) }
    ) { model, _, _ in
        try CosyVoiceSynthesizer(folder: model)
    }

    /// NeuTTS Nano / Air: 24 kHz, phoneme prompt, a voice is its NeuCodec reference codes and transcript.
    public static let neutts = Engine(
        id: "neutts", name: "NeuTTS Nano / Air", sampleRate: 24_000, capabilities: [.streaming],
        defaultModel: NeuTTSSynthesizer.defaultFolder, modelDescription: "a NeuTTS model folder",
        voiceLister: { model in try NeuTTSSynthesizer.installedVoices(folder: model) }
    ) { model, _, _ in
        try NeuTTSSynthesizer(folder: model)
    }

    /// Chatterbox Turbo: 24 kHz, a voice is the speech encoder's four outputs for a clip; graphs loaded on first use.
    public static let chatterbox = Engine(
        id: "chatterbox", name: "Chatterbox Turbo", sampleRate: 24_000, capabilities: [.streaming],
        defaultModel: ChatterboxSynthesizer.defaultFolder, modelDescription: "a Chatterbox Turbo ONNX model folder",
        voiceLister: { model in try ChatterboxSynthesizer.installedVoices(folder: model) }
    ) { model, _, _ in
        try ChatterboxSynthesizer(folder: model)
    }

    /// Every engine, the default first.
    public static let all: [Engine] = [.kokoro, .piper, .cosyvoice, .neutts, .chatterbox]

    /// The engine called `id`; throws naming the known ones otherwise.
    public static func named(_ id: String) throws -> Engine {
        guard let engine = all.first(where: { $0.id == id.lowercased() }) else {
            throw EngineError.unknownEngine(id, known: all.map(\.id))
        }
        return engine
    }
}

/// Why an engine cannot be found or loaded as asked.
public enum EngineError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case unknownEngine(String, known: [String])
    case languageNotSelectable(engine: String)
    case cannotClone(engine: String, cloning: [String])

    public var description: String {
        switch self {
        case .unknownEngine(let id, let known):
            "There is no engine called '\(id)'; use one of \(known.joined(separator: ", "))."
        case .languageNotSelectable(let engine):
            "The \(engine) engine speaks the language of its voice; leave the language out or pick kokoro."
        case .cannotClone(let engine, let cloning):
            "The \(engine) engine cannot clone voices; use \(cloning.joined(separator: " or "))."
        }
    }

    public var errorDescription: String? { description }
}
