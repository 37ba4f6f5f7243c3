import ChorusSpeech
import Foundation
import Hummingbird

/// What the server offers: `GET /v1/models`, `GET /v1/audio/voices` and `GET /health`.
struct CatalogRoutes: Sendable {
    let engines: EngineCache
    let queue: AdmissionQueue
    /// When the server started, in seconds since 1970: the `created` time of its models.
    let started: Int

    /// OpenAI's model list: one model per engine.
    func models(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct Model: Encodable {
            var id: String
            var object = "model"
            var created: Int
            var ownedBy = "chorus"
            var name: String
            var sampleRate: Int
            var clonesVoices: Bool
            enum CodingKeys: String, CodingKey {
                case id, object, created, name
                case ownedBy = "owned_by"
                case sampleRate = "sample_rate"
                case clonesVoices = "clones_voices"
            }
        }
        struct List: Encodable {
            var object = "list"
            var data: [Model]
        }
        let models = engines.engines.map {
            Model(id: $0.id, created: started, name: $0.name, sampleRate: $0.sampleRate, clonesVoices: $0.clonesVoices)
        }
        return try json(List(data: models))
    }

    /// Every voice of the engines that load (`?engine=` for one), and why the others do not.
    func voices(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct Unavailable: Encodable {
            var engine: String
            var message: String
        }
        struct Listing: Encodable {
            var voices: [Voice]
            var unavailable: [Unavailable]
        }
        let asked = request.uri.queryParameters.get("engine")
        let chosen = try asked.map { [try engines.resolve(model: $0)] } ?? engines.engines
        var listing = Listing(voices: [], unavailable: [])
        for engine in chosen {
            do {
                listing.voices += try await engines.loaded(engine).voices
            } catch let error as APIError {
                listing.unavailable.append(Unavailable(engine: engine.id, message: error.message))
            }
        }
        return try json(listing)
    }

    /// Liveness for a balancer: always 200 while the server runs, with each engine's load state and queue.
    func health(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct EngineState: Encodable {
            var loaded: Bool
            var queued: Int
        }
        struct Health: Encodable {
            var status = "ok"
            var engines: [String: EngineState]
        }
        let loaded = await engines.loadedIDs
        var states: [String: EngineState] = [:]
        for engine in engines.engines {
            states[engine.id] = EngineState(loaded: loaded.contains(engine.id), queued: queue.depth(of: engine.id))
        }
        return try json(Health(engines: states))
    }
}

/// A 200 JSON response.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Response(status: status, headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
}
