import ChorusEngines
import ChorusRecognition
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
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
    let connections: OpenConnections
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
        self.connections = OpenConnections(total: Self.connectionLimit(configuration.maximumConnections),
                                           perAddress: configuration.maximumConnectionsPerAddress, metrics: metrics)
        self.logger = logger
    }

    /// One route the server answers: its method, its pattern, and whether the key guards it.
    struct Endpoint: Sendable {
        let method: HTTPRequest.Method
        let path: RouterPath
        let needsKey: Bool
        let respond: @Sendable (Request, ServerRequestContext) async throws -> Response
    }

    /// Every route, the one list `makeRouter` registers and the tests walk. The key is attached to the
    /// routes that need it, so it is checked on whatever spelling of a path the router resolves to them
    /// (`//v1/models`, `/v1/models/`), and before their handlers read a byte of the body. The page, its
    /// files and `/health` are open, and so is `/metrics` unless `protectsMetrics` is set, as Prometheus
    /// scrapes without a key.
    func endpoints() -> [Endpoint] {
        let speech = SpeechRoute(configuration: configuration, engines: engines, queue: queue, metrics: metrics)
        let catalog = CatalogRoutes(engines: engines, queue: queue, started: Int(Date().timeIntervalSince1970))
        let voices = VoiceRoutes(configuration: configuration, engines: engines, queue: queue)
        let transcription = TranscriptionRoute(configuration: configuration, transcriber: transcriber, queue: queue)
        let playground = PlaygroundRoutes(configuration: configuration, engines: engines, history: history, files: playgroundFiles)
        let metricsText: @Sendable (Request, ServerRequestContext) async throws -> Response = { [engines, queue, metrics, connections] _, _ in
            for engine in engines.engines { metrics.setQueueDepth(engine: engine.id, queue.depth(of: engine.id)) }
            metrics.setOpenConnections(connections.counts.open)
            let loaded = await engines.loadedIDs
            metrics.setLoaded(engines.engines.map { ($0.id, loaded.contains($0.id)) })
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        return [
            Endpoint(method: .post, path: "/v1/audio/speech", needsKey: true, respond: speech.respond),
            Endpoint(method: .get, path: "/v1/models", needsKey: true, respond: catalog.models),
            Endpoint(method: .get, path: "/v1/audio/voices", needsKey: true, respond: catalog.voices),
            Endpoint(method: .post, path: "/v1/audio/voices", needsKey: true, respond: voices.create),
            Endpoint(method: .delete, path: "/v1/audio/voices/:id", needsKey: true, respond: voices.delete),
            Endpoint(method: .post, path: "/v1/audio/transcriptions", needsKey: true, respond: transcription.respond),
            Endpoint(method: .get, path: "/health", needsKey: false, respond: catalog.health),
            Endpoint(method: .get, path: "/metrics", needsKey: configuration.protectsMetrics, respond: metricsText),
            Endpoint(method: .get, path: "/", needsKey: false, respond: playground.page),
            Endpoint(method: .get, path: "/playground.js", needsKey: false, respond: playground.script),
            Endpoint(method: .get, path: "/playground.css", needsKey: false, respond: playground.style),
            Endpoint(method: .get, path: "/playground/history", needsKey: true, respond: playground.list),
            Endpoint(method: .post, path: "/playground/history", needsKey: true, respond: playground.add),
            Endpoint(method: .get, path: "/playground/history/:id/audio", needsKey: true, respond: playground.audio),
            Endpoint(method: .delete, path: "/playground/history/:id", needsKey: true, respond: playground.remove),
        ]
    }

    /// The routes and middleware.
    public func makeRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        router.add(middleware: APIErrorMiddleware())
        let keyed = router.group().add(middleware: BearerAuthMiddleware(key: configuration.apiKey))
        let endpoints = endpoints()
        for endpoint in endpoints {
            if endpoint.needsKey {
                keyed.on(endpoint.path, method: endpoint.method, use: endpoint.respond)
            } else {
                router.on(endpoint.path, method: endpoint.method, use: endpoint.respond)
            }
        }
        // A known path asked with another method is a 405 naming the methods it takes (the router
        // alone answers 404), behind the same key as the path.
        var seen: Set<String> = []
        for endpoint in endpoints where seen.insert(endpoint.path.description).inserted {
            let allowed = endpoints.filter { $0.path.description == endpoint.path.description }.map(\.method)
            let refuse: @Sendable (Request, ServerRequestContext) async throws -> Response = { _, _ in
                throw APIError.methodNotAllowed(allowed: allowed)
            }
            for method in Self.methods where !allowed.contains(method) {
                if endpoint.needsKey {
                    keyed.on(endpoint.path, method: method, use: refuse)
                } else {
                    router.on(endpoint.path, method: method, use: refuse)
                }
            }
        }
        return router
    }

    /// The methods a known path answers with 405 when it does not take them.
    static let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]

    /// The WebSocket routes: ElevenLabs' stream-input.
    func makeWebSocketRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        let streamInput = StreamInputRoute(configuration: configuration, engines: engines, queue: queue)
        router.ws(StreamInputRoute.path, shouldUpgrade: streamInput.shouldUpgrade, onUpgrade: streamInput.session)
        return router
    }

    /// The application, listening where the configuration says; `onServerRunning` gets the bound
    /// port (useful with port 0). Connections idle past `idleTimeout` (no whole request head yet
    /// (`FirstHeadDeadlineHandler`), or none after a response) are closed, and so are those whose client stops
    /// reading for `writeTimeout` (`StalledWriteHandler`). At most `connectionLimit` are open at once, and
    /// `maximumConnectionsPerAddress` from one client address: past either, the oldest idle one is closed
    /// (`OpenConnections`). WebSockets have no ping: stream-input ends on its inactivity timeout.
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let writeTimeout = TimeAmount(configuration.writeTimeout)
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [StalledWriteHandler(timeout: writeTimeout)],
                                               idleTimeout: TimeAmount(configuration.idleTimeout))
        let webSocketResponder = makeWebSocketRouter().buildResponder()
        let headTimeout = TimeAmount(configuration.idleTimeout)
        // As `.http1WebSocketUpgrade(webSocketRouter:configuration:)` builds it, with the server's guards added.
        let server = HTTPServerBuilder { [connections] responder in
            GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                    configuration: .init(http1: http1, ws: .init(maxFrameSize: StreamInputRoute.messageLimit,
                                                                                                                autoPing: .disabled))),
                                headTimeout: headTimeout, connections: connections, frameLimit: StreamInputRoute.messageLimit)
        }
        return Application(router: makeRouter(),
                           server: server,
                           configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                                serverName: "chorus",
                                                availableConnectionsDelegate: MaximumAvailableConnections(connectionLimit, logger: logger)),
                           onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }

    /// `maximumConnections`, lowered to leave 64 descriptors of the process's limit for the listening
    /// socket, model files and the history database: a server that runs out of descriptors cannot accept
    /// even `/health`, and spins on the failing accept.
    var connectionLimit: Int { connections.total }

    /// `maximum`, lowered to fit `RLIMIT_NOFILE` (see `connectionLimit`).
    static func connectionLimit(_ maximum: Int) -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let found = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        #else
        let found = getrlimit(RLIMIT_NOFILE, &limit) == 0
        #endif
        guard found, limit.rlim_cur != rlim_t.max else { return maximum }
        return max(1, min(maximum, Int(clamping: limit.rlim_cur) - 64))
    }

    /// Serves until SIGINT or SIGTERM; then it takes no new connections, lets requests in flight
    /// finish for up to `shutdownGrace`, and cancels what is still running (model calls included).
    /// Whatever runs, the process ends at most `shutdownGrace` plus 5 s after the signal (`ShutdownDeadline`).
    public func run(shutdownGrace: Duration = .seconds(30),
                    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let deadline = ShutdownDeadline(signals: [SIGTERM, SIGINT], after: shutdownGrace + .seconds(5)) { [logger] in
            logger.error("requests still running 5 s after the shutdown grace; stopping now")
            exit(1)
        }
        defer { deadline.cancel() }
        try await makeServiceGroup(shutdownGrace: shutdownGrace, signals: [.sigterm, .sigint],
                                   onServerRunning: onServerRunning).run()
    }

    /// The service group `run` runs: `triggerGracefulShutdown()` (or one of `signals`) starts the
    /// shutdown `run` describes.
    public func makeServiceGroup(shutdownGrace: Duration, signals: [UnixSignal],
                                 onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: makeApplication(onServerRunning: onServerRunning))]
        if let idle = configuration.engineIdleUnload {
            services.append(.init(service: IdleEngineUnloader(engines: engines, queue: queue, idle: idle, logger: logger),
                                  successTerminationBehavior: .ignore))
        }
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger)
        group.maximumGracefulShutdownDuration = shutdownGrace
        // No `maximumCancellationDuration`: past it the group calls fatalError, and Swift's backtracer then
        // holds the process for 12-15 s (debug build) before it dies of SIGILL, so `ShutdownDeadline` never got
        // to end it: a server busy in work that ignored its cancellation ended 45-48 s after SIGTERM instead of
        // 35 s. `run` ends the process 5 s after the grace; an embedding app decides for itself.
        return ServiceGroup(configuration: group)
    }
}

/// Unloads the engines no request used for `idle` (`ServerConfiguration.engineIdleUnload`), looking every
/// `idle / 4` (at most every 30 s), until the server shuts down.
struct IdleEngineUnloader: Service {
    let engines: EngineCache
    let queue: AdmissionQueue
    let idle: Duration
    let logger: Logger

    func run() async throws {
        let interval = min(idle / 4, .seconds(30))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let unloaded = await engines.unloadIdle(before: .now - idle) { queue.depth(of: $0) > 0 }
                if !unloaded.isEmpty { logger.info("unloaded \(unloaded.joined(separator: ", ")): unused for \(idle)") }
            }
        }
    }
}
