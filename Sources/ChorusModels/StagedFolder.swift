import Foundation

/// A folder filled under a hidden temporary name beside its destination, marked complete and renamed
/// into place only once every file is written, so an interrupted install or voice never looks
/// finished. Only folders holding the `.complete` marker count as installed (as `scripts/setup.sh`
/// writes them).
public struct StagedFolder: Sendable {
    /// Where the folder ends up.
    public let destination: URL
    /// Where it is filled meanwhile: `.<name>.<uuid>.partial` in the destination's parent.
    public let temporary: URL

    public init(destination: URL) {
        self.destination = destination
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial", isDirectory: true)
    }

    /// Writes the `.complete` marker holding `stamp`, removes a folder already at the destination and
    /// renames the temporary folder into place. (rename(2) cannot replace a folder that has files,
    /// so replacing one takes two steps; the marker keeps a half-done one from being taken as complete.)
    public func commit(stamp: String = "") throws {
        try Data(stamp.utf8).write(to: temporary.appendingPathComponent(ModelManifest.completionMarker))
        if FileManager.default.fileExists(atPath: destination.path) {
            try FileManager.default.removeItem(at: destination)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Removes the temporary folder and what is in it.
    public func discard() {
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Creates the temporary folder, runs `body` on it, and commits it with `stamp` only if `body`
    /// succeeds; on any failure the temporary folder is removed and the error passed on.
    public static func make<T>(at destination: URL, stamp: String = "", _ body: (URL) throws -> T) throws -> T {
        let staged = StagedFolder(destination: destination)
        do {
            try FileManager.default.createDirectory(at: staged.temporary, withIntermediateDirectories: true)
            let result = try body(staged.temporary)
            try staged.commit(stamp: stamp)
            return result
        } catch {
            staged.discard()
            throw error
        }
    }
}
