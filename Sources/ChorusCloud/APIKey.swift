import Foundation

/// A cloud provider's secret key. It prints as `***`, so it cannot leak into logs or error
/// messages, and text that came back from a server is scrubbed of it before it is shown.
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    package let secret: String

    public init(_ secret: String) {
        self.secret = secret
    }

    /// The key in the environment variable `variable`; throws `CloudProviderError.missingAPIKey` when unset or empty.
    public static func fromEnvironment(
        _ variable: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> APIKey {
        guard let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw CloudProviderError.missingAPIKey(variable: variable)
        }
        return APIKey(value)
    }

    public var description: String { "***" }
    public var debugDescription: String { "APIKey(***)" }

    /// `text` with every occurrence of the key replaced by `***`.
    package func redact(_ text: String) -> String {
        secret.isEmpty ? text : text.replacingOccurrences(of: secret, with: "***")
    }
}
