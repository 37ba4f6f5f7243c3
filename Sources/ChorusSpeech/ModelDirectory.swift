import Foundation

/// Where installed models live: `CHORUS_MODELS`, else `~/.cache/chorus/models`.
public enum ModelDirectory {
    /// The environment variable that overrides the location.
    public static let environmentVariable = "CHORUS_MODELS"

    /// The model root for this process.
    public static var root: URL {
        if let custom = ProcessInfo.processInfo.environment[environmentVariable], !custom.isEmpty {
            return URL(fileURLWithPath: custom, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/chorus/models", isDirectory: true)
    }

    /// The folder of one engine's default model, e.g. `<root>/kokoro`.
    public static func folder(for engine: String) -> URL {
        root.appendingPathComponent(engine, isDirectory: true)
    }
}
