import Foundation

/// A value shared between threads, read and changed only under its lock.
///
/// For state touched from threads outside Swift concurrency (device callbacks, signal handlers,
/// network event loops), where an actor cannot be awaited. Synchronization's `Mutex` would do, but
/// it needs macOS 15 and the package supports 14. Visible to the package's other targets.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
