import Foundation

/// A file written under a hidden temporary name beside its destination and renamed over it only once
/// complete, so a reader never sees a half-written file under the final name and a failed write
/// leaves nothing behind. Being in the same folder, the rename is one step on one file system.
///
/// What is at the destination decides the rest (`OutputTarget`): a device or pipe is written to
/// directly and never replaced; a replaced file's mode and owner pass to its replacement, and a file
/// with several hard links is rewritten in place so every name keeps the new content.
///
/// Every temporary file of the process is listed until it is committed or discarded, so
/// `discardAllInFlight()` (run on exit and, once `cleansUpOnSignals()` is called, on SIGINT, SIGTERM
/// and SIGHUP) leaves none behind; each name carries its process id, so one left by a process that
/// was killed outright is removed by the next write to the same destination.
public struct StagedFile: Sendable {
    /// Where the file ends up.
    public let destination: URL
    /// Where it is written meanwhile: `.<name>.<uuid>.<pid>.partial` in the destination's folder, or
    /// the destination itself when that is a device.
    public let temporary: URL
    /// What was at the destination when writing began.
    public let target: OutputTarget

    /// Stages a file for `destination` after checking it against `policy` (throws `OutputError`).
    public init(destination: URL, policy: OutputTarget.Policy = OutputTarget.Policy()) throws {
        self.destination = destination
        target = try OutputTarget.inspect(destination, policy: policy)
        if target == .device {
            temporary = destination
            return
        }
        Self.removeAbandoned(besides: destination)
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).\(getpid()).partial")
        Self.inFlight.withLock { _ = $0.insert(temporary.path) }
    }

    /// Creates (or truncates) the temporary file, writes `contents`, and returns a handle positioned at
    /// its end. Opened with open(2), not FileManager, whose "create" replaces a device node with a file.
    public func create(contents: Data = Data()) throws -> FileHandle {
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: contents)
        } catch {
            try? handle.close()
            throw error
        }
        return handle
    }

    /// Puts the finished temporary file in place: renamed over the destination (rename(2), because
    /// Foundation's `replaceItemAt` fails on Linux when the destination exists), or copied into it
    /// when the destination has other hard links; nothing for a device. Throws the `POSIXError` of a
    /// failed step; the temporary file is then still there for `discard()`.
    public func commit() throws {
        defer { Self.inFlight.withLock { _ = $0.remove(temporary.path) } }
        switch target {
        case .device:
            return
        case .newFile:
            break
        case .existingFile(let attributes) where attributes.links > 1:
            try copyIntoDestination()
            unlink(temporary.path)
            return
        case .existingFile(let attributes):
            // The owner only changes where permitted (root, or a group of one's own); the mode always can.
            _ = chown(temporary.path, attributes.owner, attributes.group)
            guard chmod(temporary.path, attributes.mode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        guard rename(temporary.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Removes the temporary file, if there is one (never the destination).
    public func discard() {
        Self.inFlight.withLock { _ = $0.remove(temporary.path) }
        if temporary != destination { unlink(temporary.path) }
    }

    /// Runs `body` on the temporary file and puts it in place only if `body` succeeds; on any
    /// failure (of `body` or the commit) the temporary file is removed and the error passed on.
    public static func write<T>(to destination: URL, policy: OutputTarget.Policy = OutputTarget.Policy(),
                                _ body: (StagedFile) throws -> T) throws -> T {
        let staged = try StagedFile(destination: destination, policy: policy)
        do {
            let result = try body(staged)
            try staged.commit()
            return result
        } catch {
            staged.discard()
            throw error
        }
    }

    /// `write(to:policy:_:)` for a body that suspends.
    public static func write<T>(to destination: URL, policy: OutputTarget.Policy = OutputTarget.Policy(),
                                _ body: (StagedFile) async throws -> T) async throws -> T {
        let staged = try StagedFile(destination: destination, policy: policy)
        do {
            let result = try await body(staged)
            try staged.commit()
            return result
        } catch {
            staged.discard()
            throw error
        }
    }

    /// Writes the temporary file's bytes over the destination's, keeping its inode and so its other names.
    private func copyIntoDestination() throws {
        let source = try FileHandle(forReadingFrom: temporary)
        defer { try? source.close() }
        let descriptor = open(destination.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let sink = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? sink.close() }
        while let block = try source.read(upToCount: 1 << 20), !block.isEmpty {
            try sink.write(contentsOf: block)
        }
    }

    // MARK: Temporary files of this process and of dead ones

    private static let inFlight = Locked(Set<String>())

    /// Removes every temporary file this process has not yet committed or discarded.
    public static func discardAllInFlight() {
        for path in inFlight.withLock({ paths in defer { paths.removeAll() }; return paths }) { unlink(path) }
    }

    /// Removes the temporary files for `destination` that a process which no longer runs left behind.
    static func removeAbandoned(besides destination: URL) {
        let folder = destination.deletingLastPathComponent()
        let prefix = ".\(destination.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".partial") {
            let fields = name.dropFirst(prefix.count).dropLast(".partial".count).split(separator: ".")
            guard fields.count == 2, UUID(uuidString: String(fields[0])) != nil, let pid = pid_t(fields[1]), pid > 0 else { continue }
            if kill(pid, 0) == -1, errno == ESRCH { unlink(folder.appendingPathComponent(name).path) }
        }
    }

    /// Makes SIGINT, SIGTERM and SIGHUP remove this process's temporary files before it ends as the
    /// signal would have ended it; also on a normal exit. Call once, early, in a command that writes files.
    public static func cleansUpOnSignals() {
        SignalCleanup.installOnce
    }
}

/// The process-wide signal handlers behind `StagedFile.cleansUpOnSignals()`.
private enum SignalCleanup {
    static let installOnce: Void = {
        atexit { StagedFile.discardAllInFlight() }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                StagedFile.discardAllInFlight()
                signal(number, SIG_DFL)
                // To the process, not this thread: dispatch's threads block signals, so raise(3) here would wait.
                kill(getpid(), number)
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }()

    /// Kept alive for the process's lifetime.
    static let sources = Locked([any DispatchSourceSignal]())
}
