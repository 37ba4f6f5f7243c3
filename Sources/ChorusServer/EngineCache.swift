import ChorusEngines
import ChorusSpeech

/// The engines, each loaded once on first use; concurrent first requests share one load, and a load
/// that failed (a model not installed yet) is tried again by the next request. An engine that selects a
/// language (Kokoro) is loaded once more for each language a text chosen by its language is read in
/// (`VoiceChoice.espeakLanguage`: Japanese text read with espeak-ng's Japanese, not its default English).
actor EngineCache {
    let engines: [Engine]
    private var loads: [String: Task<any SpeechSynthesizer, any Error>] = [:]
    private var loaded: Set<String> = []
    /// When each load was last asked for or seen busy (`unloadIdle`).
    private var lastUsed: [String: ContinuousClock.Instant] = [:]

    init(_ engines: [Engine]) {
        self.engines = engines
    }

    /// The engine `id` names (case-insensitive); nil when there is none.
    nonisolated func engine(named id: String) -> Engine? {
        engines.first { $0.id == id.lowercased() }
    }

    /// The loaded synthesizer of `engine`, reading text in `language` (the engine's default when nil).
    func synthesizer(for engine: Engine, language: String? = nil) async throws -> any SpeechSynthesizer {
        let key = Self.key(engine, language)
        lastUsed[key] = .now
        let load: Task<any SpeechSynthesizer, any Error>
        if let running = loads[key] {
            load = running
        } else {
            // each engine is loaded once per language, for every request
            load = Task { try await engine.load(from: nil, language: language) }
            loads[key] = load
        }
        do {
            let synthesizer = try await load.value
            loaded.insert(engine.id)
            return synthesizer
        } catch {
            if loads[key] == load { loads[key] = nil }
            throw error
        }
    }

    /// Where the load of `engine` reading `language` is kept.
    private static func key(_ engine: Engine, _ language: String?) -> String {
        language.map { "\(engine.id) \($0)" } ?? engine.id
    }

    /// `engine` loaded again when the voice `id` was not among its voices at load time but is on disk
    /// now (another server sharing the model folder cloned it); nil when it is not on disk either.
    /// Requests already running keep the synthesizer they have; concurrent callers share one reload.
    func reloaded(_ engine: Engine, language: String? = nil, toFind id: String) async throws -> (any SpeechSynthesizer)? {
        let current = try await synthesizer(for: engine, language: language)
        if current.voices.contains(where: { $0.id == id }) { return current }
        guard let onDisk = try? engine.installedVoices(), onDisk.contains(where: { $0.id == id }) else { return nil }
        loads[Self.key(engine, language)] = nil
        return try await synthesizer(for: engine, language: language)
    }

    /// The ids of the engines loaded so far (for /health; loads nothing).
    var loadedIDs: Set<String> { loaded }

    /// Drops every load last asked for before `cutoff` whose engine `busy` does not hold now (a busy one counts
    /// as used now), and returns the ids of the engines left with no load. A request still running keeps the
    /// synthesizer it has, so the models are freed when the last one ends and the next request loads anew.
    func unloadIdle(before cutoff: ContinuousClock.Instant, busy: @Sendable (String) -> Bool) -> [String] {
        var unloaded: Set<String> = []
        for (key, used) in lastUsed where used < cutoff {
            let id = String(key.prefix { $0 != " " })
            if busy(id) {
                lastUsed[key] = .now
                continue
            }
            loads[key] = nil
            lastUsed[key] = nil
            unloaded.insert(id)
        }
        let gone = unloaded.filter { id in !loads.keys.contains { $0 == id || $0.hasPrefix(id + " ") } }
        loaded.subtract(gone)
        return gone.sorted()
    }
}

extension EngineCache {
    /// The engine a request's `model` names: an engine id, or one of OpenAI's model names (and
    /// nothing) for the first engine; a 404 listing the served ids otherwise.
    nonisolated func resolve(model: String?) throws -> Engine {
        guard let first = engines.first else {
            throw APIError(.notFound, "This server has no engines.", param: "model", code: "model_not_found")
        }
        guard let model, !model.isEmpty, !SpeechRequestBody.openAIModelNames.contains(model.lowercased()) else { return first }
        guard let engine = engine(named: model) else {
            throw APIError(.notFound, "There is no model '\(model)' here; use one of \(engines.map(\.id).joined(separator: ", ")).",
                           param: "model", code: "model_not_found")
        }
        return engine
    }

    /// The engine and voice for a speech request, and why: the engine its `model` names; for no model or
    /// one of OpenAI's, `VoiceChoice` by the voice it names (an OpenAI voice name names none: it is mapped
    /// once the engine is chosen) and the text's language. A 404 for a model that is not served.
    nonisolated func choose(model: String?, voice: String?, text: String) throws -> VoiceChoice {
        let engine = try resolve(model: model)
        if let model, !model.isEmpty, !SpeechRequestBody.openAIModelNames.contains(model.lowercased()) {
            return VoiceChoice(engine: engine, voice: nil, reason: "the request's model is \(engine.id)")
        }
        let named = voice.flatMap { voice in OpenAIVoiceMap.names.contains { $0.name == voice.lowercased() } ? nil : voice }
        return VoiceChoice.choose(for: text, voice: named, among: engines)
    }

    /// The loaded `engine` and its voice `id` (the default when nil), as the API shows a failure. A voice
    /// it did not have when it loaded but that is on disk now (cloned through another server sharing the
    /// model folder) is found by loading the engine again.
    func loaded(_ engine: Engine, language: String? = nil, voice id: String?) async throws -> (any SpeechSynthesizer, Voice) {
        let synthesizer = try await loaded(engine, language: language)
        do {
            return (synthesizer, try synthesizer.voice(id))
        } catch SpeechError.unknownVoice(let id, let engineName, let available) {
            do {
                guard let fresh = try await reloaded(engine, language: language, toFind: id) else {
                    throw SpeechError.unknownVoice(id, engine: engineName, available: available)
                }
                return (fresh, try fresh.voice(id))
            } catch {
                throw APIError.from(speech: error)
            }
        } catch {
            throw APIError.from(speech: error)
        }
    }

    /// `synthesizer(for:language:)` with a load failure as the API shows it (a model not installed is a 404
    /// that says how to install it).
    func loaded(_ engine: Engine, language: String? = nil) async throws -> any SpeechSynthesizer {
        do {
            return try await synthesizer(for: engine, language: language)
        } catch {
            throw APIError.from(speech: error)
        }
    }
}
