import Hummingbird

/// The per-request context every route of the server sees.
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
