import Foundation

/// Where installed models live: one folder per model (`<root>/kokoro`, `<root>/piper`, ...) under a
/// root that is, in order, `$CHORUS_MODELS`; on Linux `$XDG_CACHE_HOME/chorus/models`, else
/// `~/.cache/chorus/models` (where `scripts/setup.sh` installs); on Apple platforms
/// `chorus/models` in the user's Application Support folder.
public struct ModelStore: Sendable, Equatable {
    /// The environment variable that overrides the root.
    public static let environmentVariable = "CHORUS_MODELS"

    /// The folder holding one sub-folder per model.
    public let root: URL

    /// A store at `root`.
    public init(root: URL) {
        self.root = root
    }

    /// The store `environment` points to (see the type's summary for the order).
    public init(environment: [String: String]) {
        if let custom = environment[Self.environmentVariable], !custom.isEmpty {
            self.init(root: URL(fileURLWithPath: custom, isDirectory: true))
        } else {
            self.init(root: Self.platformRoot(environment: environment))
        }
    }

    /// The store of this process, from its environment.
    public static var current: ModelStore { ModelStore(environment: ProcessInfo.processInfo.environment) }

    /// The folder of the model installed as `id` (`<root>/<id>`).
    public func folder(named id: String) -> URL {
        root.appendingPathComponent(id, isDirectory: true)
    }

    /// The folder `manifest`'s model is installed in.
    public func folder(for manifest: ModelManifest) -> URL {
        folder(named: manifest.id)
    }

    /// The root on Linux and other XDG systems: `$XDG_CACHE_HOME/chorus/models` when that variable
    /// holds an absolute path (the XDG spec says to ignore a relative one), else
    /// `<home>/.cache/chorus/models`, `home` being `$HOME` or, without it, the account's home folder.
    static func cacheRoot(environment: [String: String], home: @autoclosure () -> URL) -> URL {
        let cache: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            cache = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            cache = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            cache = home().appendingPathComponent(".cache", isDirectory: true)
        }
        return cache.appendingPathComponent("chorus/models", isDirectory: true)
    }
}
