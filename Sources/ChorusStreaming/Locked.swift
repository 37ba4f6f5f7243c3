import Foundation

/// A value shared between threads, read and changed only under its lock.
///
/// Sinks are fed from the pipeline's task and report back from device threads and callbacks,
/// so their state needs a lock rather than an actor. Visible to the package's other targets
/// (cloud providers, the command) that share state with threads the same way.
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
