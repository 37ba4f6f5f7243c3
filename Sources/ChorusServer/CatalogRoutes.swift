import ChorusEngines
import ChorusSpeech
import Foundation
import Hummingbird

/// What the server offers: `GET /v1/models`, `GET /v1/audio/voices` and `GET /health`.
struct CatalogRoutes: Sendable {
    let engines: EngineCache
    let queue: AdmissionQueue
    /// When the server started, in seconds since 1970: the `created` time of its models.
    let started: Int

    /// OpenAI's model list: one model per engine, with what it can do (`Engine.capabilities`), the speeds and
    /// options it takes (`Engine.speeds`, `Engine.options`) and, for an engine that clones, what a clip needs.
    func models(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct Cloning: Encodable {
            var needsTranscript: Bool
            var withoutTranscript: String?
            var minimumSeconds: Double
            var maximumSeconds: Double
            var dialects: [String]
            enum CodingKeys: String, CodingKey {
                case dialects
                case needsTranscript = "needs_transcript"
                case withoutTranscript = "without_transcript"
                case minimumSeconds = "minimum_seconds"
                case maximumSeconds = "maximum_seconds"
            }
        }
        struct Option: Encodable {
            var name: String
            var type: String
            var minimum: Double?
            var maximum: Double?
            var maximumCharacters: Int?
            var summary: String
            enum CodingKeys: String, CodingKey {
                case name, type, minimum, maximum, summary
                case maximumCharacters = "maximum_characters"
            }

            init(_ option: SpeechOption) {
                name = option.name
                summary = option.summary
                switch option.kind {
                case .number(let range):
                    type = "number"
                    minimum = range.lowerBound
                    maximum = range.upperBound
                case .integer(let range):
                    type = "integer"
                    minimum = Double(range.lowerBound)
                    maximum = Double(range.upperBound)
                case .text(let limit):
                    type = "text"
                    maximumCharacters = limit
                case .flag:
                    type = "flag"
                }
            }
        }
        struct Speeds: Encodable {
            var minimum: Float
            var maximum: Float
        }
        struct Model: Encodable {
            var id: String
            var object = "model"
            var created: Int
            var ownedBy = "chorus"
            var name: String
            var sampleRate: Int
            var clonesVoices: Bool
            var capabilities: [String]
            var cloning: Cloning?
            var options: [Option]
            var speed: Speeds
            enum CodingKeys: String, CodingKey {
                case id, object, created, name, capabilities, cloning, options, speed
                case ownedBy = "owned_by"
                case sampleRate = "sample_rate"
                case clonesVoices = "clones_voices"
            }
        }
        struct List: Encodable {
            var object = "list"
            var data: [Model]
        }
        let models = engines.engines.map { engine in
            Model(id: engine.id, created: started, name: engine.name, sampleRate: engine.sampleRate,
                  clonesVoices: engine.cloning != nil, capabilities: engine.capabilities.names,
                  cloning: engine.cloning.map {
                      Cloning(needsTranscript: $0.needsTranscript, withoutTranscript: $0.withoutTranscript,
                              minimumSeconds: $0.clipSeconds.lowerBound, maximumSeconds: $0.clipSeconds.upperBound,
                              dialects: $0.dialects.map(\.name))
                  },
                  options: engine.options.map(Option.init),
                  speed: Speeds(minimum: engine.speeds.lowerBound, maximum: engine.speeds.upperBound))
        }
        return try json(List(data: models))
    }

    /// Every voice installed for each engine (`?engine=` for one), and why an engine has none: read from the model
    /// folders, so a listing loads no engine (a page that lists voices would otherwise hold every model resident).
    func voices(_ request: Request, context: ServerRequestContext) async throws -> Response {
        struct Unavailable: Encodable {
            var engine: String
            var message: String
        }
        struct Listing: Encodable {
            var voices: [Voice]
            var unusable: [UnusableEntry]
            var unavailable: [Unavailable]
        }
        struct UnusableEntry: Encodable {
            var engine: String
            var id: String
            var problem: String
        }
        let asked = request.uri.queryParameters.get("engine")
        let chosen = try asked.map { [try engines.resolve(model: $0)] } ?? engines.engines
        var listing = Listing(voices: [], unusable: [], unavailable: [])
        for engine in chosen {
            do {
                listing.voices += try engine.installedVoices()
                listing.unusable += engine.unusableVoices().map { UnusableEntry(engine: engine.id, id: $0.id, problem: $0.problem) }
            } catch {
                listing.unavailable.append(Unavailable(engine: engine.id, message: APIError.from(speech: error).message))
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
