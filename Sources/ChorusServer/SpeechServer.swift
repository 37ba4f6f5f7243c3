import Foundation
import Hummingbird
import Logging

/// Chorus as an OpenAI-compatible speech server: `POST /v1/audio/speech` streams audio from the
/// local engines, with the models and voices listed, a bearer key, limits on bodies and text, and
/// a bounded queue per engine.
///
/// It keeps no state about a client beyond one request, so several instances behind a load balancer
/// serve the same API.
public struct SpeechServer: Sendable {
    public let configuration: ServerConfiguration
    let engines: EngineCache
    let queue: AdmissionQueue
    let transcriber: TranscriberCache
    let logger: Logger

    /// - Parameter transcriber: loads the recogniser behind `/v1/audio/transcriptions` on its first request
    ///   (FastConformer from `$CHORUS_MODELS/fastconformer` by default).
    public init(configuration: ServerConfiguration = ServerConfiguration(), engines: [ServedEngine] = ServedEngine.registry,
                transcriber: @escaping @Sendable () async throws -> any SpeechTranscriber = { try FastConformerTranscriber() },
                logger: Logger = Logger(label: "chorus.serve")) {
        self.configuration = configuration
        self.engines = EngineCache(engines)
        self.transcriber = TranscriberCache(transcriber)
        self.queue = AdmissionQueue(limit: configuration.queueLimit)
        self.logger = logger
    }

    /// The routes and middleware.
    public func makeRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: APIErrorMiddleware())
        router.add(middleware: BearerAuthMiddleware(key: configuration.apiKey))

        let speech = SpeechRoute(configuration: configuration, engines: engines, queue: queue)
        let catalog = CatalogRoutes(engines: engines, queue: queue, started: Int(Date().timeIntervalSince1970))
        router.post("/v1/audio/speech", use: speech.respond)
        router.get("/v1/models", use: catalog.models)
        router.get("/v1/audio/voices", use: catalog.voices)
        router.get("/health", use: catalog.health)
        let voices = VoiceRoutes(configuration: configuration, engines: engines)
        router.post("/v1/audio/voices", use: voices.create)
        router.delete("/v1/audio/voices/:id", use: voices.delete)
        let transcription = TranscriptionRoute(configuration: configuration, transcriber: transcriber)
        router.post("/v1/audio/transcriptions", use: transcription.respond)
        return router
    }

    /// The application, listening where the configuration says.
    public func makeApplication() -> some ApplicationProtocol {
        Application(router: makeRouter(),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                         serverName: "chorus"),
                    logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then stops taking connections and lets requests in flight finish.
    public func run() async throws {
        try await makeApplication().runService()
    }
}
