import Foundation
import GRPCCore

/// Errors of the Google provider, one sentence each for the user. None holds a key or token:
/// server messages are scrubbed of them first.
public enum GoogleSpeechError: Error, Equatable, CustomStringConvertible, Sendable {
    /// None of the credential variables is set.
    case missingCredentials(variables: [String])
    /// The endpoint is not `https://host[:port]` or `http://host:port`.
    case invalidEndpoint(String)
    /// The service refused the credentials (gRPC UNAUTHENTICATED or PERMISSION_DENIED).
    case authentication(message: String)
    /// The project is out of quota or sending too fast (RESOURCE_EXHAUSTED).
    case quotaExceeded(message: String)
    /// The service could not be reached or refused to take the call (UNAVAILABLE before any audio).
    case unavailable(message: String)
    /// The call ran past its deadline (DEADLINE_EXCEEDED).
    case deadlineExceeded
    /// The stream broke after audio had started to arrive.
    case interrupted(afterBytes: Int, message: String)
    /// The service turned the request down for another reason (an unknown voice, a bad rate, ...).
    case rejected(code: String, message: String)

    public var description: String {
        switch self {
        case .missingCredentials(let variables):
            "No Google credentials: set \(variables.joined(separator: " or ")) (an API key, or a token from gcloud auth print-access-token)."
        case .invalidEndpoint(let endpoint):
            "The Google endpoint \(endpoint) is not https://host[:port] or http://host:port."
        case .authentication(let message):
            "Google Cloud Text-to-Speech refused the credentials (\(message)); check the API key or renew the access token."
        case .quotaExceeded(let message):
            "Google Cloud Text-to-Speech says the quota is used up (\(message)); wait, or raise the project's quota."
        case .unavailable(let message):
            "Google Cloud Text-to-Speech cannot be reached (\(message)); check the network and the endpoint, then try again."
        case .deadlineExceeded:
            "Google Cloud Text-to-Speech did not finish before the call's deadline; try a shorter text or a longer timeout."
        case .interrupted(let bytes, let message):
            "The stream from Google Cloud Text-to-Speech broke after \(bytes) bytes of audio (\(message)); try again."
        case .rejected(let code, let message):
            "Google Cloud Text-to-Speech turned the request down (\(code): \(message)); check the voice, language and sample rate."
        }
    }

    /// The error a failed call is reported as: by its gRPC code, and as an interruption when audio
    /// had already arrived and the code is not one the user acts on differently.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func from(_ error: RPCError, audioBytes: Int, scrubbing secret: (String) -> String) -> GoogleSpeechError {
        let message = clause(secret(error.message))
        switch error.code {
        case .unauthenticated, .permissionDenied: return .authentication(message: message)
        case .resourceExhausted: return .quotaExceeded(message: message)
        case .deadlineExceeded: return .deadlineExceeded
        default: break
        }
        if audioBytes > 0 { return .interrupted(afterBytes: audioBytes, message: message) }
        if error.code == .unavailable { return .unavailable(message: message) }
        return .rejected(code: String(describing: error.code), message: message)
    }

    /// A server's or transport's message as a clause inside our sentence: no final full stop.
    static func clause(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix(".") { text.removeLast() }
        return text.isEmpty ? "no message" : text
    }
}
