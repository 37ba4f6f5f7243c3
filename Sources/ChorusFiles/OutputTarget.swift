import Foundation

/// What is at a path a command is about to write, looked at before anything is written, so that a
/// device is written to rather than replaced, an input is never overwritten by its own output, and
/// a file that is replaced keeps its mode, owner and hard links.
public enum OutputTarget: Sendable, Equatable {
    /// Nothing is there yet.
    case newFile
    /// A regular file that the new one replaces; what it had is given to its replacement.
    case existingFile(Attributes)
    /// A character or block device, a pipe or a socket (`/dev/null`, `/dev/stdout`, a FIFO): written
    /// to directly, never replaced by a file.
    case device

    /// What a replaced file keeps.
    public struct Attributes: Sendable, Equatable {
        /// Permission bits (with set-id and sticky bits).
        public var mode: mode_t
        public var owner: uid_t
        public var group: gid_t
        /// How many names the file has; more than one means it is written in place to keep them.
        public var links: Int
    }

    /// What the caller allows.
    public struct Policy: Sendable {
        /// Files the command reads; the output may be none of them.
        public var inputs: [URL]
        /// Whether a file without write permission may be replaced (`--force`).
        public var replacesReadOnly: Bool

        public init(inputs: [URL] = [], replacesReadOnly: Bool = false) {
            self.inputs = inputs
            self.replacesReadOnly = replacesReadOnly
        }
    }

    /// Looks at `url` and checks it against `policy`; throws `OutputError` when it must not be written.
    public static func inspect(_ url: URL, policy: Policy = Policy()) throws -> OutputTarget {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return .newFile }
            throw OutputError.unusable(path: url.path, reason: String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw OutputError.isFolder(path: url.path)
        case S_IFREG:
            break
        default:
            return .device
        }
        for input in policy.inputs {
            var other = stat()
            if stat(input.path, &other) == 0, other.st_dev == status.st_dev, other.st_ino == status.st_ino {
                throw OutputError.isInput(path: url.path, input: input.path)
            }
        }
        // Root may write anything, so the permission bits are read rather than access(2).
        if status.st_mode & 0o222 == 0, !policy.replacesReadOnly {
            throw OutputError.readOnly(path: url.path)
        }
        return .existingFile(Attributes(mode: status.st_mode & 0o7777, owner: status.st_uid, group: status.st_gid,
                                        links: Int(status.st_nlink)))
    }
}

/// Why an output path is not written.
public enum OutputError: Error, Equatable, LocalizedError, CustomStringConvertible {
    case isFolder(path: String)
    case isInput(path: String, input: String)
    case readOnly(path: String)
    case unusable(path: String, reason: String)

    public var description: String {
        switch self {
        case .isFolder(let path):
            "Cannot write \(path): it is a folder; name a file inside it."
        case .isInput(let path, let input):
            "Cannot write \(path): it is the input \(input), which writing would destroy; choose another output file."
        case .readOnly(let path):
            "Cannot write \(path): the file is read-only; make it writable or pass --force to replace it."
        case .unusable(let path, let reason):
            "Cannot write \(path): \(reason)."
        }
    }

    public var errorDescription: String? { description }
}
