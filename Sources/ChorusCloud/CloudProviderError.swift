/// Errors of the cloud providers, worded for the user. None of them ever holds an API key.
public enum CloudProviderError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The environment variable that should hold the key is unset or empty.
    case missingAPIKey(variable: String)
    /// The configured endpoint is not a usable URL.
    case invalidURL(String)
    /// The service refused the request (bad key, unknown voice, bad parameters).
    case rejected(provider: String, status: Int?, message: String)
    /// The service reported an error in the middle of a stream.
    case serverError(provider: String, message: String)
    /// No connection could be made.
    case connectionFailed(provider: String, reason: String)
    /// The connection ended before the service said the audio was complete.
    case connectionClosed(provider: String)
    /// The service sent something that does not follow its protocol.
    case invalidResponse(provider: String, reason: String)

    public var description: String {
        switch self {
        case .missingAPIKey(let variable):
            "No API key: set the environment variable \(variable)."
        case .invalidURL(let url):
            "The endpoint \(url) is not a valid URL."
        case .rejected(let provider, let status, let message):
            "\(provider) refused the request\(status.map { " (HTTP \($0))" } ?? ""): \(message). Check the API key, voice and model."
        case .serverError(let provider, let message):
            "\(provider) reported an error while speaking: \(message)."
        case .connectionFailed(let provider, let reason):
            "Cannot reach \(provider): \(reason). Check the network and the endpoint."
        case .connectionClosed(let provider):
            "The connection to \(provider) closed before the audio was complete; try again."
        case .invalidResponse(let provider, let reason):
            "\(provider) sent an unexpected response: \(reason)."
        }
    }
}
