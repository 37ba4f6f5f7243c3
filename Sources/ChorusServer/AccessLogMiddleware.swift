import Hummingbird
import Logging

/// One structured log line per request: method, path (no query, no headers, so no key), status and
/// milliseconds taken until the head was ready.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "path": "\(request.uri.path)",
            "status": "\(response.status.code)",
            "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ])
        return response
    }
}
