import ArgumentParser
import ChorusCosyVoice
import ChorusEngines
import Foundation
import ChorusSpeech

/// The engines the command can load, by their command-line names.
enum EngineChoice: String, CaseIterable, ExpressibleByArgument {
    case kokoro, piper, cosyvoice, neutts, chatterbox

    /// The registry's engine of this name.
    var engine: Engine {
        switch self {
        case .kokoro: .kokoro
        case .piper: .piper
        case .cosyvoice: .cosyvoice
        case .neutts: .neutts
        case .chatterbox: .chatterbox
        }
    }

    /// Loads the engine from `model` (a Kokoro folder, a Piper `.onnx` or a CosyVoice folder), or its default model.
    func load(model: String? = nil, language: String? = nil, servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        if language != nil {
            switch self {
            case .kokoro: break
            case .piper:
                throw ValidationError("--language applies to Kokoro; a Piper voice speaks the language it was trained on.")
            case .cosyvoice:
                throw ValidationError("--language applies to Kokoro; CosyVoice speaks the text as its voice prompt leads it.")
            case .neutts:
                throw ValidationError("--language applies to Kokoro; a NeuTTS backbone reads the language its folder's neutts.json names.")
            case .chatterbox:
                throw ValidationError("--language applies to Kokoro; Chatterbox Turbo speaks English.")
            }
        }
        return try await engine.load(from: model.map { URL(fileURLWithPath: $0) }, language: language, servingOnly: request)
    }
}

/// The options that pick and load an engine, shared by the commands that speak.
struct EngineOptions: ParsableArguments {
    @Option(help: "The engine: \(EngineChoice.allCases.map(\.rawValue).joined(separator: ", ")).")
    var engine: EngineChoice = .kokoro

    @Option(help: ArgumentHelp(EngineOptions.modelHelp, valueName: "path"))
    var model: String?

    /// Names what each engine takes as a model, from the registry, so a new engine is listed too.
    static let modelHelp = "A model other than the engine's default ("
        + EngineChoice.allCases.map { "\($0.rawValue): \($0.engine.modelDescription)" }.joined(separator: "; ") + ")."

    @Option(help: ArgumentHelp("Kokoro only: the espeak-ng language the text is read in (en-us, en-gb, fr, es, ...).",
                               valueName: "espeak-voice"))
    var language: String?

    @Flag(help: ArgumentHelp("""
        CosyVoice only: speak in upstream's cross-lingual mode, which reads neither the voice's transcript nor its \
        speech tokens (for text in another language than the clip's, and for voices added without --text).
        """))
    var crossLingual = false

    /// The engine; with `servingOnly`, loaded for that request alone (see `Engine.load(from:language:servingOnly:)`).
    func load(servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        if crossLingual, engine != .cosyvoice {
            throw ValidationError("--cross-lingual applies to CosyVoice; add --engine cosyvoice or leave it out.")
        }
        let synthesizer = try await engine.load(model: model, language: language, servingOnly: request)
        guard crossLingual, let cosyVoice = synthesizer as? CosyVoiceSynthesizer else { return synthesizer }
        return cosyVoice.speaking(in: .crossLingual)
    }
}
