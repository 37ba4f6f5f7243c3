import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error as OpenAI's API returns it: an HTTP status and
/// `{"error": {"message", "type", "param", "code"}}`, so clients written for that API show the message.
public struct APIError: Error, Equatable, Sendable, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// One sentence: what is wrong and what to do.
    public var message: String
    /// OpenAI's category: `invalid_request_error`, `authentication_error`, `rate_limit_error`, `server_error`.
    public var type: String
    /// The request field at fault, if one is.
    public var param: String?
    /// A short machine-readable reason ("model_not_found", "queue_full").
    public var code: String?
    /// Seconds a client should wait before trying again (429).
    public var retryAfter: Int?
    /// The methods the route takes (405).
    public var allowedMethods: [HTTPRequest.Method]?

    public init(_ status: HTTPResponse.Status, _ message: String, type: String = "invalid_request_error",
                param: String? = nil, code: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status.code) \(message)" }

    public var headers: HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        // A body that did not arrive in time leaves the connection in an unknown place: close it.
        if status == .requestTimeout { headers[.connection] = "close" }
        if let allowedMethods { headers[.allow] = allowedMethods.map(\.rawValue).joined(separator: ", ") }
        return headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }

    /// The JSON body.
    public var body: Data {
        struct Envelope: Encodable {
            struct Detail: Encodable {
                var message: String
                var type: String
                var param: String?
                var code: String?
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(message, forKey: .message)
                    try container.encode(type, forKey: .type)
                    // OpenAI sends these as null rather than leaving them out.
                    try container.encode(param, forKey: .param)
                    try container.encode(code, forKey: .code)
                }
                enum CodingKeys: String, CodingKey { case message, type, param, code }
            }
            var error: Detail
        }
        let envelope = Envelope(error: .init(message: message, type: type, param: param, code: code))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(envelope)) ?? Data(#"{"error":{"message":"internal error"}}"#.utf8)
    }
}

extension APIError {
    static func invalid(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(.badRequest, message, param: param, code: code)
    }

    static let unauthorized = APIError(
        .unauthorized, "This server needs an API key: send it as 'Authorization: Bearer <key>' (or 'xi-api-key: <key>').",
        type: "authentication_error", code: "invalid_api_key")

    static func methodNotAllowed(allowed: [HTTPRequest.Method]) -> APIError {
        var error = APIError(.methodNotAllowed,
                             "This route takes \(allowed.map(\.rawValue).joined(separator: " or ")), not that method.",
                             code: "method_not_allowed")
        error.allowedMethods = allowed
        return error
    }

    static func queueFull(engine: String, limit: Int, retryAfter: Int) -> APIError {
        APIError(.tooManyRequests,
                 "The \(engine) engine already has \(limit) requests running or waiting; try again in \(retryAfter) s.",
                 type: "rate_limit_error", code: "queue_full", retryAfter: retryAfter)
    }

    /// The server's own failure, its reason kept but every absolute path in it cut to its last component: a
    /// client learns what failed, not where the server keeps its files (the log keeps the whole error).
    static func server(_ error: any Error) -> APIError {
        APIError(.internalServerError, "The server failed: \(withoutPaths("\(error)")).", type: "server_error")
    }

    /// `text` with each absolute path (two components or more) written as `…/` and its last component.
    static func withoutPaths(_ text: String) -> String {
        text.replacing(#/\/(?:[^\s\/'"]+\/)+([^\s\/'"]+)/#) { "…/" + $0.output.1 }
    }

    /// Any error a route or Hummingbird threw, as the API shows it.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case is NIOTooManyBytesError:
            return APIError(.contentTooLarge, "The request body is larger than this server accepts; send less.",
                            code: "body_too_large")
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                return APIError(.notFound, "There is no such route; see /v1/models, /v1/audio/speech and /v1/audio/voices.",
                                code: "unknown_route")
            case .methodNotAllowed:
                return APIError(.methodNotAllowed, "This route does not take that method.", code: "method_not_allowed")
            default:
                return APIError(error.status, error.body ?? error.status.reasonPhrase)
            }
        default:
            return .server(error)
        }
    }
}
