import Hummingbird

/// Every error a route, the router (unknown path) or a body limit throws leaves as an OpenAI-style JSON
/// error with its status, never as a bare status or a message in another shape.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let apiError = APIError.from(error)
            if apiError.status.kind == .serverError {
                context.logger.error("request failed", metadata: ["error": "\(error)"])
            }
            return Response(status: apiError.status, headers: apiError.headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(data: apiError.body)))
        }
    }
}
