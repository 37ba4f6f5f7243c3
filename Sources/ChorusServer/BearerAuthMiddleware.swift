import HTTPTypes
import Hummingbird

/// With a key configured, the routes it guards answer only requests that carry it, as
/// `Authorization: Bearer <key>` (OpenAI's clients) or `xi-api-key: <key>` (ElevenLabs'). It sits on the
/// routes themselves (`SpeechServer.endpoints`), so it runs on the path the router resolved, whatever its
/// spelling, and before a handler reads the body. The value is compared in constant time and never logged.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: BearerKey?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key else { return try await next(request, context) }
        guard key.matches(request.headers) else { throw APIError.unauthorized }
        return try await next(request, context)
    }
}

extension BearerKey {
    /// ElevenLabs' header for the key.
    static let elevenLabsHeader = HTTPField.Name("xi-api-key")!

    /// Whether `headers` carry this key, in `Authorization: Bearer` or in `xi-api-key`.
    func matches(_ headers: HTTPFields) -> Bool {
        if let offered = headers[Self.elevenLabsHeader] { return matches(authorization: "Bearer " + offered) }
        return matches(authorization: headers[.authorization])
    }

    /// Whether `headers` offer a key at all (right or wrong).
    static func offered(in headers: HTTPFields) -> Bool {
        headers[elevenLabsHeader] != nil || headers[.authorization] != nil
    }
}
