import ChorusAudio
import ChorusEngines
import ChorusSpeech
import Foundation
import Hummingbird

/// `POST /v1/audio/voices` clones a voice from an uploaded clip with any engine that clones (multipart:
/// `audio`, `id`, `engine`, and `transcript` where the engine reads one (CosyVoice makes a cross-lingual voice without
/// it); `language`, `replace` and, for an engine with `.instructions`, `instruction` or a `dialect` by name optional) and
/// installs it; `DELETE /v1/audio/voices/{id}?engine=` (or `?model=`) removes an installed one. Both go through the engine's
/// `VoiceCloning`, so ids follow `VoiceID`'s rule and voices are written as `VoiceStore` writes them.
///
/// Statuses: 201 made; 400 a bad field (id, clip, transcript, engine that does not clone, an instruction to an
/// engine without instructions); 404 an unknown
/// engine or voice, or a model not installed; 409 an id taken without `replace`; 413 a body over the upload limit;
/// 429 when the engine's queue is full (an upload holds a place in it, as speech does, from its clip's decoding on).
struct VoiceRoutes: Sendable {
    let configuration: ServerConfiguration
    let engines: EngineCache
    let queue: AdmissionQueue

    func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (bytes, _) = try await RequestBodyReader.read(request, limit: configuration.maximumUploadBytes, within: configuration.bodyTimeout)
        let form = try MultipartForm(contentType: request.headers[.contentType], body: Data(buffer: bytes),
                                     maximumParts: configuration.maximumFormParts)
        let (engine, cloning) = try cloningEngine(form.text("engine") ?? form.text("model"))
        let id = try checkedID(form.text("id"))
        let replacing = ["true", "1", "yes", "on"].contains(form.text("replace")?.lowercased() ?? "")
        let transcript = form.text("transcript").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if cloning.needsTranscript, transcript == nil, cloning.withoutTranscript == nil {
            throw APIError.invalid("The \(engine.id) engine needs the clip's transcript, word for word, as 'transcript'.",
                                   param: "transcript")
        }
        let dialect = try dialect(form.text("dialect"), of: engine, cloning)
        var instruction = form.text("instruction").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let dialect {
            guard instruction == nil else { throw APIError.invalid("Give 'dialect' or 'instruction', not both.", param: "instruction") }
            instruction = dialect.instruction
        }
        let language = form.text("language").flatMap { $0.isEmpty ? nil : $0 } ?? dialect?.language
        if instruction != nil, !engine.capabilities.contains(.instructions) {
            let instructed = engines.engines.filter { $0.capabilities.contains(.instructions) }.map(\.id)
            throw APIError.invalid("The \(engine.id) engine takes no instruction"
                                   + (instructed.isEmpty ? "." : "; engines that do: \(instructed.joined(separator: ", "))."),
                                   param: "instruction")
        }
        do {
            // Texts a voice keeps are measured before the clip is decoded.
            try VoiceClip.checkStoredText(transcript, field: "transcript", limit: VoiceClip.maximumTranscriptCharacters)
            try VoiceClip.checkStoredText(instruction, field: "instruction", limit: VoiceClip.maximumInstructionCharacters)
        } catch {
            throw APIError.from(speech: error)
        }
        // The clip is judged by the engine's longest clip before it is decoded, and decoded under that bound.
        let ticket = try queue.admit(engine.id)
        defer { ticket.release() }
        let clip = try form.audioFile("audio", or: "file", what: "the clip",
                                      limits: AudioInputLimits(maximumSeconds: cloning.clipSeconds.upperBound))
        let voiceClip = VoiceClip(samples: clip.samples, sampleRate: clip.sampleRate,
                                  transcript: cloning.needsTranscript ? transcript : nil)
        do {
            try voiceClip.check(accepting: cloning.clipSeconds, engine: engine.id)  // before the engine loads
            guard let cloner = try await engines.loaded(engine) as? any VoiceCloning else {
                throw EngineError.cannotClone(engine: engine.id, cloning: [])
            }
            if !replacing, cloner.voices.contains(where: { $0.id == id }) {
                throw SpeechError.voiceExists(id, engine: engine.id)
            }
            var voice = try await cloner.cloneVoice(from: voiceClip, id: id, language: language)
            if let instruction {
                guard let instructed = cloner as? any InstructedVoices else {
                    throw APIError.invalid("The \(engine.id) engine takes no instruction.", param: "instruction")
                }
                voice = try instructed.instructed(voice, with: instruction)
            }
            if let language { voice.voice.language = language }
            if let dialect { voice.voice.summary += ", \(dialect.name)" }
            try await cloner.register(voice, replacing: replacing)
            return try json(voice.voice, status: .created)
        } catch {
            throw APIError.from(speech: error)
        }
    }

    func delete(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let raw = try context.parameters.require("id")
        let id = raw.removingPercentEncoding ?? raw
        // `model` names the engine as well, as in the upload's form and OpenAI's requests.
        let query = request.uri.queryParameters
        let engine = try cloningEngine(query.get("engine") ?? query.get("model")).engine
        let cloner = try await engines.loaded(engine) as? any VoiceCloning
        let normalized = id.precomposedStringWithCanonicalMapping
        guard let cloner, cloner.voices.contains(where: { $0.id == normalized })
                || cloner.unusableVoices.contains(where: { $0.id == normalized }) else {
            throw APIError(.notFound, "The \(engine.id) engine has no voice '\(VoiceID.excerpt(of: id))'.",
                           param: "id", code: "voice_not_found")
        }
        do {
            try await cloner.removeVoice(id: normalized)
        } catch SpeechError.unknownVoice {
            // Another DELETE of the same voice won the race: to this one it is not there.
            throw APIError(.notFound, "The \(engine.id) engine has no voice '\(VoiceID.excerpt(of: id))'.",
                           param: "id", code: "voice_not_found")
        } catch {
            throw APIError.from(speech: error)
        }
        return Response(status: .noContent)
    }

    /// The dialect the form's `dialect` names (nil when it names none), or a 400 naming the ones there are.
    private func dialect(_ name: String?, of engine: Engine, _ cloning: Engine.Cloning) throws -> Engine.NamedInstruction? {
        guard let name = name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
        guard !cloning.dialects.isEmpty else {
            let speaking = engines.engines.filter { !($0.cloning?.dialects.isEmpty ?? true) }.map(\.id)
            throw APIError.invalid("The \(engine.id) engine takes no dialect"
                                   + (speaking.isEmpty ? "." : "; engines that do: \(speaking.joined(separator: ", "))."),
                                   param: "dialect")
        }
        guard let dialect = cloning.dialect(named: name) else {
            throw APIError.invalid("Unknown dialect '\(VoiceID.excerpt(of: name))'; one of: "
                                   + cloning.dialects.map(\.name).joined(separator: ", ") + ".", param: "dialect")
        }
        return dialect
    }

    /// `id` checked by the one voice-id rule, as a 400 naming the field.
    private func checkedID(_ id: String?) throws -> String {
        guard let id = id?.trimmingCharacters(in: .whitespaces), !id.isEmpty else {
            throw APIError.invalid("Give the new voice an id (letters, digits, - and _).", param: "id")
        }
        do {
            return try VoiceID.checked(id)
        } catch {
            throw APIError.from(speech: error)
        }
    }

    /// The engine `name` names (the first engine that clones when nil) if it clones; a 400 naming those that do otherwise.
    private func cloningEngine(_ name: String?) throws -> (engine: Engine, cloning: Engine.Cloning) {
        let cloning = engines.engines.filter { $0.cloning != nil }
        let engine: Engine
        if let name, !name.isEmpty {
            engine = try engines.resolve(model: name)
        } else if let first = cloning.first {
            engine = first
        } else {
            throw APIError.invalid("No engine on this server clones voices.", param: "engine")
        }
        guard let requirements = engine.cloning else {
            let names = cloning.map(\.id).joined(separator: ", ")
            throw APIError.invalid("The \(engine.id) engine cannot clone voices\(names.isEmpty ? "" : "; use \(names)").",
                                   param: "engine")
        }
        return (engine, requirements)
    }
}
