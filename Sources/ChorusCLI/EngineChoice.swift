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
    @Option(help: ArgumentHelp("The engine: \(EngineChoice.allValueStrings.joined(separator: ", ")). Left out, the text's "
                               + "language picks an installed voice that speaks it natively (see -v), else \(EngineChoice.first.id).",
                               valueName: "engine"))
    var engine: EngineChoice?

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
        speech tokens (for text in another language than the clip's, and for voices added without --text); \
        the same as --set cross_lingual=true.
        """))
    var crossLingual = false

    @Option(name: .customLong("set"), help: ArgumentHelp(EngineOptions.settingsHelp, valueName: "name=value"))
    var settings: [String] = []

    /// Lists each engine's own options, from the registry, so an option an engine declares is offered here.
    static var settingsHelp: String {
        let engines = Engine.registered.filter { !$0.options.isEmpty }
        return "An option of the engine (repeat for several): "
            + engines.map { engine in
                "\(engine.id): " + engine.options.map { "\($0.name) (\($0.expected)): \($0.summary)" }.joined(separator: "; ")
            }.joined(separator: " ")
    }

    /// The options `--set` (and `--cross-lingual`) give, checked against what `engine` declares.
    func requestOptions(for engine: Engine) throws -> [String: SpeechOptionValue] {
        var options: [String: SpeechOptionValue] = crossLingual ? ["cross_lingual": .flag(true)] : [:]
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--set takes NAME=VALUE (such as noise_scale=0.5); got '\(setting)'.")
            }
            options[parts[0].lowercased().replacingOccurrences(of: "-", with: "_")] = .text(parts[1])
        }
        return try engine.checkedOptions(options)
    }

    /// The engine and voice that speak `text` (nil: read as it arrives), and why. `--engine` wins; without
    /// it, `--model` is the default engine's and `--language` is read by an engine that selects one (the
    /// one with the voice named, else the first); else `VoiceChoice` picks by the voice named or the text's
    /// language.
    func choice(for text: String?, voice: String?) -> VoiceChoice {
        if let engine {
            return VoiceChoice(engine: engine.engine, voice: nil, reason: "--engine \(engine.id)")
        }
        if model != nil {
            return VoiceChoice(engine: EngineChoice.first.engine, voice: nil,
                               reason: "--model without --engine is read by the default engine, \(EngineChoice.first.id)")
        }
        let selecting = Engine.all.filter { $0.capabilities.contains(.languageSelection) }
        if let language, let first = selecting.first {
            if let voice { return VoiceChoice.choose(for: nil, voice: voice, among: selecting) }
            return VoiceChoice(engine: first, voice: nil,
                               reason: "--language \(language) is read by \(first.id), the first engine that selects a language")
        }
        return VoiceChoice.choose(for: text, voice: voice)
    }

    /// The engine `choice` names; with `servingOnly`, loaded for that request alone (see
    /// `Engine.load(from:language:servingOnly:)`). An engine chosen by the text's language that selects a
    /// language reads the text in it (Kokoro chosen for Japanese reads with espeak-ng's Japanese).
    /// The engine's options (`requestOptions(for:)`) are in every request the synthesizer returned is given.
    func load(_ choice: VoiceChoice, servingOnly request: SynthesisRequest? = nil) async throws -> any SpeechSynthesizer {
        let engine = EngineChoice(choice.engine)
        if crossLingual, !engine.engine.options.contains(where: { $0.name == "cross_lingual" }) {
            let crossing = Engine.all.filter { $0.options.contains { $0.name == "cross_lingual" } }.map(\.id)
            throw ValidationError("--cross-lingual applies to \(crossing.joined(separator: ", ")); add --engine \(crossing.first ?? "cosyvoice") or leave it out.")
        }
        let options = try requestOptions(for: engine.engine)
        let language = self.language ?? (self.engine == nil && engine.engine.capabilities.contains(.languageSelection)
                                            ? choice.espeakLanguage : nil)
        return try await engine.load(model: model, language: language, servingOnly: request).speaking(with: options)
    }
}
