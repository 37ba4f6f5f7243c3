import Hummingbird
import Logging

/// One structured log line per request (method, path without its query, status, milliseconds until
/// the head was ready; never a header, so never a key), and the request counted in the metrics under
/// its route's pattern.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let milliseconds = Int(seconds(since: start) * 1000)
        metrics.countRequest(route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                             status: Int(response.status.code))
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "path": "\(request.uri.path)",
            "status": "\(response.status.code)",
            "ms": "\(milliseconds)",
        ])
        return response
    }
}
