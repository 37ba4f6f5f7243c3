import ChorusEngines
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import UnixSignals

/// Chorus as an OpenAI-compatible speech server: `POST /v1/audio/speech` streams audio from the
/// local engines, with the models and voices listed, a bearer key, limits on bodies and text, and
/// a bounded queue per engine; a web playground at `/` with its history in SQLite.
///
/// It keeps no state about a client beyond one request, so several instances behind a load balancer
/// serve the same API; what lasts (cloned voices, the playground's history) is files in the model
/// folder, which instances on one machine share.
public struct SpeechServer: Sendable {
    public let configuration: ServerConfiguration
    let engines: EngineCache
    let queue: AdmissionQueue
    let transcriber: TranscriberCache
    let history: PlaygroundHistory?
    let playgroundFiles: PlaygroundFiles
    let metrics = ServerMetrics()
    let logger: Logger

    /// - Parameter transcriber: loads the recogniser behind `/v1/audio/transcriptions` on its first request
    ///   (FastConformer from `$CHORUS_MODELS/fastconformer` by default).
    /// - Parameter playgroundFolder: the web page's files (found beside the executable by default).
    public init(configuration: ServerConfiguration = ServerConfiguration(), engines: [Engine] = Engine.all,
                transcriber: @escaping @Sendable () async throws -> any SpeechTranscriber = { try FastConformerTranscriber() },
                playgroundFolder: URL? = nil, logger: Logger = Logger(label: "chorus.serve")) {
        self.configuration = configuration
        self.engines = EngineCache(engines)
        self.transcriber = TranscriberCache(transcriber)
        self.history = configuration.historyFolder.map { PlaygroundHistory(folder: $0) }
        self.playgroundFiles = playgroundFolder.map { PlaygroundFiles(folder: $0) } ?? PlaygroundFiles()
        self.queue = AdmissionQueue(limit: configuration.queueLimit)
        self.logger = logger
    }

    /// The routes and middleware.
    public func makeRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        router.add(middleware: APIErrorMiddleware())
        router.add(middleware: BearerAuthMiddleware(key: configuration.apiKey))

        let speech = SpeechRoute(configuration: configuration, engines: engines, queue: queue, metrics: metrics)
        let catalog = CatalogRoutes(engines: engines, queue: queue, started: Int(Date().timeIntervalSince1970))
        router.post("/v1/audio/speech", use: speech.respond)
        router.get("/v1/models", use: catalog.models)
        router.get("/v1/audio/voices", use: catalog.voices)
        router.get("/health", use: catalog.health)
        router.get("/metrics") { [engines, queue, metrics] _, _ -> Response in
            for engine in engines.engines { metrics.setQueueDepth(engine: engine.id, queue.depth(of: engine.id)) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        let voices = VoiceRoutes(configuration: configuration, engines: engines)
        router.post("/v1/audio/voices", use: voices.create)
        router.delete("/v1/audio/voices/:id", use: voices.delete)
        let transcription = TranscriptionRoute(configuration: configuration, transcriber: transcriber)
        router.post("/v1/audio/transcriptions", use: transcription.respond)
        let playground = PlaygroundRoutes(configuration: configuration, engines: engines, history: history, files: playgroundFiles)
        router.get("/", use: playground.page)
        router.get("/playground.js", use: playground.script)
        router.get("/playground.css", use: playground.style)
        router.get("/playground/history", use: playground.list)
        router.post("/playground/history", use: playground.add)
        router.get("/playground/history/:id/audio", use: playground.audio)
        router.delete("/playground/history/:id", use: playground.remove)
        return router
    }

    /// The WebSocket routes: ElevenLabs' stream-input.
    func makeWebSocketRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        let streamInput = StreamInputRoute(configuration: configuration, engines: engines, queue: queue)
        router.ws(StreamInputRoute.path, shouldUpgrade: streamInput.shouldUpgrade, onUpgrade: streamInput.session)
        return router
    }

    /// The application, listening where the configuration says; `onServerRunning` gets the bound
    /// port (useful with port 0).
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        Application(router: makeRouter(),
                    server: .http1WebSocketUpgrade(webSocketRouter: makeWebSocketRouter(),
                                                   configuration: .init(ws: .init(maxFrameSize: 1 << 20))),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                         serverName: "chorus"),
                    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
                    logger: logger)
    }

    /// Serves until SIGINT or SIGTERM; then it takes no new connections, lets requests in flight
    /// finish for up to `shutdownGrace`, and cancels what is still running (model calls included).
    public func run(shutdownGrace: Duration = .seconds(30),
                    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await makeServiceGroup(shutdownGrace: shutdownGrace, signals: [.sigterm, .sigint],
                                   onServerRunning: onServerRunning).run()
    }

    /// The service group `run` runs: `triggerGracefulShutdown()` (or one of `signals`) starts the
    /// shutdown `run` describes.
    public func makeServiceGroup(shutdownGrace: Duration, signals: [UnixSignal],
                                 onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        var group = ServiceGroupConfiguration(services: [makeApplication(onServerRunning: onServerRunning)],
                                              gracefulShutdownSignals: signals, logger: logger)
        group.maximumGracefulShutdownDuration = shutdownGrace
        return ServiceGroup(configuration: group)
    }
}
