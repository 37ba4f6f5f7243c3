import Foundation

/// An exclusive lock on a file (flock(2)), so two `chorus models pull` processes on one model take
/// turns: the second finds the model installed and downloads nothing. The kernel drops it when the
/// process dies, so a killed pull never leaves it held.
final class FolderLock: Sendable {
    private let descriptor: Int32

    /// Waits until `url` (created if absent) is locked by this process.
    init(_ url: URL) async throws {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HubError.writing(url.path, errno: errno) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let code = errno
                close(descriptor)
                throw HubError.writing(url.path, errno: code)
            }
            do {
                try await Task.sleep(nanoseconds: 100_000_000)
            } catch {
                close(descriptor)
                throw error
            }
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
