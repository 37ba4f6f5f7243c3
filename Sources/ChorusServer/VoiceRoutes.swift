import ChorusAudio
import ChorusSpeech
import Foundation
import Hummingbird

/// `POST /v1/audio/voices` clones a voice from an uploaded clip (multipart: `audio`, `id`, and
/// `transcript` where the engine needs one; `engine`, `language` optional) and installs it;
/// `DELETE /v1/audio/voices/{id}?engine=` removes an installed one.
struct VoiceRoutes: Sendable {
    let configuration: ServerConfiguration
    let engines: EngineCache

    func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (bytes, _) = try await RequestBodyReader.read(request, limit: configuration.maximumUploadBytes)
        let form = try MultipartForm(contentType: request.headers[.contentType], body: Data(buffer: bytes))
        let (engine, cloner) = try await cloningEngine(form.text("engine") ?? form.text("model"))
        guard let id = form.text("id")?.trimmingCharacters(in: .whitespaces), !id.isEmpty else {
            throw APIError.invalid("Give the new voice an id (letters, digits, - and _).", param: "id")
        }
        guard Self.isValid(id: id) else {
            throw APIError.invalid("The id '\(id)' must be letters, digits, '-' or '_', not starting with '-'.", param: "id")
        }
        guard !cloner.voices.contains(where: { $0.id == id }) else {
            throw APIError(.conflict, "The \(engine.id) engine already has a voice '\(id)'; pick another id or delete it first.",
                           param: "id", code: "voice_exists")
        }
        let clip = try form.wavFile("audio", or: "file", what: "the clip").wav
        let transcript = form.text("transcript")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if cloner.cloningNeedsTranscript, transcript?.isEmpty ?? true {
            throw APIError.invalid("The \(engine.id) engine needs the clip's transcript, word for word, as 'transcript'.",
                                   param: "transcript")
        }
        let voiceClip = VoiceClip(samples: clip.mono, sampleRate: clip.sampleRate, transcript: transcript)
        let accepted = cloner.acceptedClipDuration
        guard accepted.contains(voiceClip.duration) else {
            throw APIError.invalid(String(format: "The clip lasts %.1f s; the %@ engine takes %.0f-%.0f s.",
                                          voiceClip.duration, engine.id, accepted.lowerBound, accepted.upperBound),
                                   param: "audio")
        }
        let language = form.text("language").flatMap { $0.isEmpty ? nil : $0 }
        let voice: ClonedVoice
        do {
            voice = try await cloner.cloneVoice(from: voiceClip, id: id, language: language)
            try await cloner.register(voice)
        } catch {
            throw APIError.from(speech: error)
        }
        return try json(voice.voice, status: .created)
    }

    func delete(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let (engine, cloner) = try await cloningEngine(request.uri.queryParameters.get("engine"))
        guard cloner.voices.contains(where: { $0.id == id }) else {
            throw APIError(.notFound, "The \(engine.id) engine has no voice '\(id)'.", param: "id", code: "voice_not_found")
        }
        do {
            try await cloner.removeVoice(id: id)
        } catch {
            throw APIError.from(speech: error)
        }
        return Response(status: .noContent)
    }

    /// The engine `name` names (the first cloning engine when nil), loaded, if it clones; a 400 otherwise.
    private func cloningEngine(_ name: String?) async throws -> (ServedEngine, any VoiceCloning) {
        let cloning = engines.engines.filter(\.clonesVoices)
        let engine: ServedEngine
        if let name, !name.isEmpty {
            engine = try engines.resolve(model: name)
        } else if let first = cloning.first {
            engine = first
        } else {
            throw APIError.invalid("No engine on this server clones voices.", param: "engine")
        }
        guard engine.clonesVoices, let cloner = try await engines.loaded(engine) as? any VoiceCloning else {
            let names = cloning.map(\.id).joined(separator: " or ")
            throw APIError.invalid("The \(engine.id) engine cannot clone voices\(names.isEmpty ? "" : "; use \(names)").",
                                   param: "engine")
        }
        return (engine, cloner)
    }

    /// The rule `chorus voice add` applies: letters, digits, '-' and '_', not starting with '-'.
    static func isValid(id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && !id.hasPrefix("-") && id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
}
