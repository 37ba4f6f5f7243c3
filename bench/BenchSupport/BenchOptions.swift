// What the bench executables share: reading `--name value` options and turning durations into seconds.
import Foundation

/// The `--name value` options of a bench command line; `option("--runs", "3")` reads one.
public struct BenchOptions: Sendable {
    /// The line printed when a required option is missing.
    public let usage: String
    public let arguments: [String]

    /// Options from `arguments` (the process's own by default); `usage` names them all.
    public init(usage: String, arguments: [String] = CommandLine.arguments) {
        self.usage = usage
        self.arguments = arguments
    }

    /// The value after `name`, else `fallback`; throws with the usage line when there is neither.
    public func callAsFunction(_ name: String, _ fallback: String? = nil) throws -> String {
        if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
        guard let fallback else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "usage: \(usage); missing \(name)"])
        }
        return fallback
    }
}

/// `duration` in seconds, for reports.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}
