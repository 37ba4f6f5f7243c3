import ChorusAudio
import Foundation
import HTTPTypes
import Hummingbird

/// The web playground: the page at `/` with its script and style, and its history of spoken utterances:
/// `GET /playground/history` (newest first, `?limit=`), `POST /playground/history` (multipart: `audio`
/// a WAV, `text`, `engine`, `voice`, `speed`, `first_audio_ms`), `GET /playground/history/{id}/audio`
/// (`?download` to save it) and `DELETE /playground/history/{id}`.
struct PlaygroundRoutes: Sendable {
    let configuration: ServerConfiguration
    let engines: EngineCache
    /// Nil when the server keeps no history (`historyFolder` nil).
    let history: PlaygroundHistory?
    let files: PlaygroundFiles

    /// The most entries one listing returns.
    static let maximumListing = 500

    func page(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try files.response(for: "index.html")
    }

    func script(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try files.response(for: "playground.js")
    }

    func style(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try files.response(for: "playground.css")
    }

    func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct Listing: Encodable { var entries: [HistoryEntry] }
        let asked = request.uri.queryParameters.get("limit")
        let count: Int
        if let asked {
            guard let value = Int(asked), (1...Self.maximumListing).contains(value) else {
                throw APIError.invalid("limit must be a whole number from 1 to \(Self.maximumListing), not '\(asked)'.", param: "limit")
            }
            count = value
        } else {
            count = 50
        }
        return try json(Listing(entries: try await kept().entries(count: count)))
    }

    func add(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let history = try kept()
        let (bytes, _) = try await RequestBodyReader.read(request, limit: configuration.maximumUploadBytes, within: configuration.bodyTimeout)
        let form = try MultipartForm(contentType: request.headers[.contentType], body: Data(buffer: bytes),
                                     maximumParts: configuration.maximumFormParts)
        guard let text = form.text("text")?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw APIError.invalid("Give the utterance's text as 'text'.", param: "text")
        }
        guard text.count <= configuration.maximumTextCharacters else {
            throw APIError.invalid("The text has \(text.count) characters; this server keeps at most \(configuration.maximumTextCharacters).",
                                   param: "text")
        }
        let engine = try engines.resolve(model: form.text("engine"))
        let voice = form.text("voice")?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !voice.isEmpty, voice.count <= 128 else {
            throw APIError.invalid("Give the voice that spoke as 'voice' (at most 128 characters).", param: "voice")
        }
        let speed = try number(form.text("speed"), named: "speed", in: 0.25...4) ?? 1
        let firstAudio = try number(form.text("first_audio_ms"), named: "first_audio_ms", in: 0...3_600_000)
        let (audio, wav) = try form.wavFile("audio", what: "the spoken audio")
        guard wav.frameCount > 0 else { throw APIError.invalid("The audio holds no samples.", param: "audio") }
        let entry = try await history.add(text: text, engine: engine.id, voice: voice, speed: speed, duration: wav.duration,
                                          sampleRate: wav.sampleRate, firstAudioMilliseconds: firstAudio, wav: audio.data)
        return try json(entry, status: .created)
    }

    func audio(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let id = try entryID(context)
        guard let (entry, wav) = try await kept().audio(id: id) else { throw Self.noEntry(id) }
        var headers: HTTPFields = [.contentType: "audio/wav", .cacheControl: "no-cache"]
        let safeVoice = String(entry.voice.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let disposition = request.uri.queryParameters.get("download") == nil ? "inline" : "attachment"
        headers[.contentDisposition] = "\(disposition); filename=\"chorus-\(entry.id)-\(safeVoice).wav\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: wav)))
    }

    func remove(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let id = try entryID(context)
        guard try await kept().remove(id: id) else { throw Self.noEntry(id) }
        return Response(status: .noContent)
    }

    private func kept() throws -> PlaygroundHistory {
        guard let history else {
            throw APIError(.notFound, "This server keeps no playground history (started without a history folder).",
                           code: "history_off")
        }
        return history
    }

    private func entryID(_ context: ServerRequestContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text), id > 0 else { throw Self.noEntry(text) }
        return id
    }

    private static func noEntry(_ id: some CustomStringConvertible) -> APIError {
        APIError(.notFound, "The playground history has no entry \(id).", param: "id", code: "entry_not_found")
    }

    /// A form field read as a number within `range`; nil when absent or empty.
    private func number(_ text: String?, named name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw APIError.invalid("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'.",
                                   param: name)
        }
        return value
    }
}

/// Where the page's files are: the `Playground` folder of this target's resources, found beside the
/// executable (where SwiftPM puts the resource bundle) or, in a source checkout, beside this file.
/// Files are read on each request, so they are served exactly as they are on disk.
struct PlaygroundFiles: Sendable {
    /// The files the page is made of, with their types; nothing else is served.
    static let types = [
        "index.html": "text/html; charset=utf-8",
        "playground.js": "text/javascript; charset=utf-8",
        "playground.css": "text/css; charset=utf-8",
    ]

    let folder: URL?

    init(folder: URL? = PlaygroundFiles.locate()) {
        self.folder = folder
    }

    /// The `Playground` folder, if one of the places it can be holds it. (`Bundle.module` is not used:
    /// on Linux it stops the process when the bundle is missing, as for a `chorus` binary copied alone.)
    static func locate() -> URL? {
        let bundles = ["Chorus_ChorusServer.resources", "Chorus_ChorusServer.bundle", "Chorus_ChorusServer.bundle/Contents/Resources"]
        let executableFolder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [Bundle.main.bundleURL, executableFolder].compactMap { $0 }.flatMap { base in
            bundles.map { base.appendingPathComponent($0).appendingPathComponent("Playground") }
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Playground"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }
    }

    func response(for name: String) throws -> Response {
        guard let type = Self.types[name] else { throw HTTPError(.notFound) }
        guard let folder, let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            throw APIError(.notFound, "The playground's files are not installed beside this chorus binary; copy the "
                           + "Chorus_ChorusServer.resources folder from the build folder next to it.", code: "playground_missing")
        }
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-cache"]
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // Only this server's own files, scripts and connections: the page loads nothing from elsewhere.
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; media-src 'self' blob:; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }
}
