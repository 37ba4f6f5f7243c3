import Foundation

// The one place the store's default differs by platform. `homeDirectoryForCurrentUser` does not
// exist on iOS, so Apple platforms ask FileManager for their Application Support folder instead:
// not Caches, which the system may empty, since cloned voices live beside the models.
extension ModelStore {
    /// The root when `CHORUS_MODELS` is not set.
    static func platformRoot(environment: [String: String]) -> URL {
        #if canImport(Darwin)
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        return support.appendingPathComponent("chorus/models", isDirectory: true)
        #else
        return cacheRoot(environment: environment, home: FileManager.default.homeDirectoryForCurrentUser)
        #endif
    }
}
