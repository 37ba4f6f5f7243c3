import ArgumentParser
import ChorusCosyVoice
import ChorusEngines
import Foundation
import ChorusSpeech

/// An engine named on the command line: any of `Engine.all`, so an engine registered there is accepted too.
struct EngineChoice: ExpressibleByArgument, Equatable, CustomStringConvertible {
    let engine: Engine

    init(_ engine: Engine) { self.engine = engine }

    init?(argument: String) {
        guard let engine = try? Engine.named(argument) else { return nil }
        self.engine = engine
    }

    static var allValueStrings: [String] { Engine.all.map(\.id) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    /// The default engine: the first of `Engine.all`.
    static var first: EngineChoice { EngineChoice(Engine.all[0]) }
    /// Every engine.
    static var all: [EngineChoice] { Engine.all.map(EngineChoice.init) }

    var id: String { engine.id }
    var description: String { engine.id }
    var defaultValueDescription: String { engine.id }

    static func == (lhs: EngineChoice, rhs: EngineChoice) -> Bool { lhs.engine.id == rhs.engine.id }

    /// Loads the engine from `model` (see `Engine.modelDescription`), or its default model; a language is taken
    /// only by an engine that selects one.
    func load(model: String? = nil, language: String? = nil, servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        if language != nil, !engine.capabilities.contains(.languageSelection) {
            let selecting = Engine.all.filter { $0.capabilities.contains(.languageSelection) }.map(\.id)
            throw ValidationError("--language applies to \(selecting.joined(separator: ", ")); the \(engine.id) engine speaks the language of its voice.")
        }
        return try await engine.load(from: model.map { URL(fileURLWithPath: $0) }, language: language, servingOnly: request)
    }
}

/// The options that pick and load an engine, shared by the commands that speak.
struct EngineOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The engine: \(EngineChoice.allValueStrings.joined(separator: ", ")).", valueName: "engine"))
    var engine: EngineChoice = .first

    @Option(help: ArgumentHelp(EngineOptions.modelHelp, valueName: "path"))
    var model: String?

    /// Names what each engine takes as a model, from the registry, so a new engine is listed too.
    static var modelHelp: String {
        "A model other than the engine's default ("
            + Engine.all.map { "\($0.id): \($0.modelDescription)" }.joined(separator: "; ") + ")."
    }

    @Option(help: ArgumentHelp("The language the text is read in, for an engine that selects one ("
                               + Engine.all.filter { $0.capabilities.contains(.languageSelection) }.map(\.id).joined(separator: ", ")
                               + "): an espeak-ng language (en-us, en-gb, fr, es, ...).",
                               valueName: "espeak-voice"))
    var language: String?

    @Flag(help: ArgumentHelp("""
        CosyVoice only: speak in upstream's cross-lingual mode, which reads neither the voice's transcript nor its \
        speech tokens (for text in another language than the clip's, and for voices added without --text).
        """))
    var crossLingual = false

    /// The engine; with `servingOnly`, loaded for that request alone (see `Engine.load(from:language:servingOnly:)`).
    func load(servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        if crossLingual, engine.id != Engine.cosyvoice.id {
            throw ValidationError("--cross-lingual applies to CosyVoice; add --engine cosyvoice or leave it out.")
        }
        let synthesizer = try await engine.load(model: model, language: language, servingOnly: request)
        guard crossLingual, let cosyVoice = synthesizer as? CosyVoiceSynthesizer else { return synthesizer }
        return cosyVoice.speaking(in: .crossLingual)
    }
}
