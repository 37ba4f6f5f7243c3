import ArgumentParser
import ChorusCosyVoice
import Foundation
import ChorusKokoro
import ChorusPiper
import ChorusSpeech

/// The engines the command can load, by their command-line names.
enum EngineChoice: String, CaseIterable, ExpressibleByArgument {
    case kokoro, piper, cosyvoice

    /// Loads the engine from `model` (a Kokoro folder or a Piper `.onnx`), or its default model.
    func load(model: String? = nil, language: String? = nil) throws -> any SpeechSynthesizer {
        let url = model.map { URL(fileURLWithPath: $0) }
        switch self {
        case .kokoro:
            let files = url.map(KokoroSynthesizer.Files.init(folder:)) ?? KokoroSynthesizer.Files(
                folder: ModelDirectory.folder(for: "kokoro"))
            return try KokoroSynthesizer(files: files, espeakVoice: language ?? "en-us")
        case .piper:
            if language != nil {
                throw ValidationError("--language applies to Kokoro; a Piper voice speaks the language it was trained on.")
            }
            return try url.map { try PiperSynthesizer(modelPath: $0) } ?? PiperSynthesizer()
        case .cosyvoice:
            if language != nil {
                throw ValidationError("--language applies to Kokoro; CosyVoice speaks the text as its voice prompt leads it.")
            }
            return try CosyVoiceSynthesizer(folder: url)
        }
    }
}

/// The options that pick and load an engine, shared by the commands that speak.
struct EngineOptions: ParsableArguments {
    @Option(help: "The engine: \(EngineChoice.allCases.map(\.rawValue).joined(separator: ", ")).")
    var engine: EngineChoice = .kokoro

    @Option(help: ArgumentHelp("A model other than the engine's default: a Kokoro folder or a Piper .onnx file.",
                               valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("Kokoro only: the espeak-ng language the text is read in (en-us, en-gb, fr, es, ...).",
                               valueName: "espeak-voice"))
    var language: String?

    func load() throws -> any SpeechSynthesizer {
        try engine.load(model: model, language: language)
    }
}
