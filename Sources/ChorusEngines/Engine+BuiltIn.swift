// The engines Chorus comes with. Adding one takes its module here (re-exported, so `import ChorusEngines` or
// `import Chorus` brings its types), a `static let` describing it and its place in `builtIn`.
@_exported import ChorusChatterbox
@_exported import ChorusCosyVoice
@_exported import ChorusKokoro
import ChorusModels
@_exported import ChorusNeuTTS
import ChorusONNX
@_exported import ChorusPiper
import ChorusSpeech
import Foundation

extension Engine {
    /// The engines Chorus comes with, the default first; `all` starts with them.
    static let builtIn: [Engine] = [.kokoro, .piper, .cosyvoice, .neutts, .chatterbox]

    /// Kokoro-82M: 24 kHz, a style vector per voice, text read in any espeak-ng language.
    public static let kokoro = Engine(
        id: "kokoro", name: "Kokoro-82M", sampleRate: 24_000, capabilities: [.streaming, .languageSelection],
        models: [ModelCatalog.Entry(name: "kokoro", manifest: KokoroSynthesizer.manifest)],
        modelDescription: "a Kokoro model folder",
        defaultModel: { ModelStore.current.folder(for: KokoroSynthesizer.manifest) },
        installedVoices: { model in
            try model.map { try KokoroSynthesizer.installedVoices(files: .init(folder: $0)) } ?? KokoroSynthesizer.installedVoices()
        },
        voicesDeclareLanguage: true  // a voice name's first letter: a/b English, j Japanese, z Chinese, ...
    ) { options in
        let folder = options.model ?? ModelStore.current.folder(for: KokoroSynthesizer.manifest)
        let parallelism = try options.servingOnly.map(KokoroSynthesizer.parallelism(servingOnly:))
        return try await InferenceExecutor.shared.run {
            try KokoroSynthesizer(files: KokoroSynthesizer.Files(folder: folder), espeakVoice: options.language ?? "en-us",
                                  parallelism: parallelism)
        }
    }

    /// Piper: one VITS voice per `.onnx` file with its `.onnx.json`, each at the rate its config states.
    public static let piper = Engine(
        id: "piper", name: "Piper", sampleRate: 22_050, capabilities: [.streaming],
        models: [ModelCatalog.Entry(name: "piper", manifest: PiperSynthesizer.manifest)],
        modelVariant: { try PiperSynthesizer.manifest(voice: $0) },
        modelDescription: "a Piper voice's .onnx file (its .onnx.json beside it)",
        defaultModel: { PiperSynthesizer.defaultModel() },
        installedVoices: { model in try PiperSynthesizer.installedVoices(modelPath: model) },
        voicesDeclareLanguage: true,  // the voice config's `language.code`
        options: PiperSynthesizer.options
    ) { options in
        let parallelism = try options.servingOnly.map(PiperSynthesizer.parallelism(servingOnly:))
        return try await InferenceExecutor.shared.run {
            try PiperSynthesizer(modelPath: options.model ?? PiperSynthesizer.defaultModel(), parallelism: parallelism)
        }
    }

    /// CosyVoice 3: zero-shot voice cloning from a clip and its transcript, dialect and style instructions.
    public static let cosyvoice = Engine(
        id: "cosyvoice", name: "CosyVoice 3", sampleRate: 24_000, capabilities: [.streaming, .instructions],
        cloning: Cloning(needsTranscript: true,
                         withoutTranscript: "without the clip's transcript the voice speaks only cross-lingually (it reads none)",
                         clipSeconds: VoiceExtractor.minimumDuration...VoiceExtractor.maximumDuration,
                         dialects: Dialect.allCases.map {
                             NamedInstruction(names: [$0.rawValue, $0.chineseName], instruction: $0.instruction, language: $0.languageTag)
                         }),
        models: [ModelCatalog.Entry(name: "cosyvoice", manifest: CosyVoiceSynthesizer.manifest)],
        modelDescription: "a CosyVoice 3 model folder",
        defaultModel: { CosyVoiceSynthesizer.defaultFolder },
        installedVoices: { model in try CosyVoiceSynthesizer.installedVoices(folder: model) },
        unusableVoices: { model in CosyVoiceSynthesizer.unusableVoices(folder: model) },
        options: CosyVoiceSynthesizer.options,
        cloner: { model in CosyVoiceCloner(modelFolder: model) }
    ) { options in
        try await InferenceExecutor.shared.run { try CosyVoiceSynthesizer(folder: options.model) }
    }

    /// NeuTTS Nano / Air: 24 kHz, phoneme prompt; a voice is a clip's NeuCodec codes and its transcript.
    public static let neutts = Engine(
        id: "neutts", name: "NeuTTS Nano / Air", sampleRate: 24_000, capabilities: [.streaming],
        cloning: Cloning(needsTranscript: true, clipSeconds: CodecEncoder.minimumDuration...CodecEncoder.maximumDuration),
        models: [ModelCatalog.Entry(name: "neutts", manifest: NeuTTSSynthesizer.manifest)],
        modelDescription: "a NeuTTS model folder",
        defaultModel: { NeuTTSSynthesizer.defaultFolder },
        installedVoices: { model in try NeuTTSSynthesizer.installedVoices(folder: model) },
        unusableVoices: { model in NeuTTSSynthesizer.unusableVoices(folder: model) },
        speeds: NeuTTSSynthesizer.speeds
    ) { options in
        try await InferenceExecutor.shared.run { try NeuTTSSynthesizer(folder: options.model) }
    }

    /// Chatterbox Turbo: 24 kHz; a voice is the speech encoder's four outputs for a clip of more than 5 s,
    /// no transcript; graphs loaded on first use.
    public static let chatterbox = Engine(
        id: "chatterbox", name: "Chatterbox Turbo", sampleRate: 24_000, capabilities: [.streaming],
        cloning: Cloning(needsTranscript: false, clipSeconds: SpeechEncoder.minimumSeconds...SpeechEncoder.maximumSeconds),
        models: ChatterboxSynthesizer.Variant.allCases.map {
            ModelCatalog.Entry(name: $0 == .fp32 ? "chatterbox" : "chatterbox:\($0.rawValue)", manifest: ChatterboxSynthesizer.manifest($0))
        },
        modelDescription: "a Chatterbox Turbo ONNX model folder",
        defaultModel: { ChatterboxSynthesizer.defaultFolder },
        installedVoices: { model in try ChatterboxSynthesizer.installedVoices(folder: model) },
        unusableVoices: { model in ChatterboxSynthesizer.unusableVoices(folder: model) },
        speeds: ChatterboxSynthesizer.speeds
    ) { options in
        try await InferenceExecutor.shared.run {
            try ChatterboxSynthesizer(folder: options.model,
                                      configuration: .init(environment: ProcessInfo.processInfo.environment))
        }
    }
}
