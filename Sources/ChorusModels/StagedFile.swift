import Foundation

/// A file written under a hidden temporary name beside its destination and renamed over it only once
/// complete, so a reader never sees a half-written file under the final name and a failed write
/// leaves nothing behind. Being in the same folder, the rename is one step on one file system.
public struct StagedFile: Sendable {
    /// Where the file ends up.
    public let destination: URL
    /// Where it is written meanwhile: `.<name>.<uuid>.partial` in the destination's folder.
    public let temporary: URL

    public init(destination: URL) {
        self.destination = destination
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
    }

    /// Renames the finished temporary file to the destination, replacing a file already there in one
    /// step. rename(2) is used because Foundation's `replaceItemAt` fails on Linux when the
    /// destination exists. Throws the `POSIXError` of a failed rename.
    public func commit() throws {
        guard rename(temporary.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Removes the temporary file, if there is one.
    public func discard() {
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Runs `body` on the temporary file and renames it into place only if `body` succeeds; on any
    /// failure (of `body` or the rename) the temporary file is removed and the error passed on.
    public static func write<T>(to destination: URL, _ body: (URL) throws -> T) throws -> T {
        let staged = StagedFile(destination: destination)
        do {
            let result = try body(staged.temporary)
            try staged.commit()
            return result
        } catch {
            staged.discard()
            throw error
        }
    }

    /// `write(to:_:)` for a body that suspends.
    public static func write<T>(to destination: URL, _ body: (URL) async throws -> T) async throws -> T {
        let staged = StagedFile(destination: destination)
        do {
            let result = try await body(staged.temporary)
            try staged.commit()
            return result
        } catch {
            staged.discard()
            throw error
        }
    }
}
