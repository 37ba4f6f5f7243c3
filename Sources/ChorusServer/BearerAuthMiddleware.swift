import Hummingbird

/// With a key configured, API routes answer only requests that carry it as a bearer token. The
/// header's value is compared in constant time and never logged; the page, its files and `/health`
/// stay open so a browser can load the page (which then asks for the key) and a balancer can probe.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: BearerKey?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key, Self.isProtected(request.uri.path) else { return try await next(request, context) }
        guard key.matches(authorization: request.headers[.authorization]) else { throw APIError.unauthorized }
        return try await next(request, context)
    }

    static func isProtected(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == "/v1" || path == "/metrics" || path.hasPrefix("/playground/")
    }
}
