import Dispatch
import Foundation

/// Ends the process when a shutdown signal's grace has run out and the server has still not stopped.
///
/// The service group cancels what runs once the grace is over, but work that ignores cancellation (a
/// front end busy with a long text, a model call that cannot be interrupted) keeps going, and when it
/// keeps every thread of Swift's shared pool busy, the pool has no thread left to run the shutdown
/// itself. This deadline waits on a Dispatch queue of its own, outside that pool, so it fires whatever runs.
final class ShutdownDeadline: @unchecked Sendable {
    private let queue = DispatchQueue(label: "chorus.shutdown-deadline")
    private var sources: [any DispatchSourceSignal] = []
    private var state = (started: false, cancelled: false)

    /// Starts watching `signals`; the first one arms a timer of `delay` that calls `onExpiry` unless
    /// `cancel()` came first.
    init(signals: [Int32], after delay: Duration, onExpiry: @escaping @Sendable () -> Void) {
        let nanoseconds = Int(clamping: delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        queue.sync {
            for number in signals {
                #if canImport(Darwin)
                // As the service group does: kqueue sees a signal only when its default action (ending the
                // process) is off. Linux's Dispatch installs a handler of its own, and an ignored signal
                // would never reach it.
                signal(number, SIG_IGN)
                #endif
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [unowned self] in
                    guard !state.started, !state.cancelled else { return }
                    state.started = true
                    queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                        if !state.cancelled { onExpiry() }
                    }
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Stops watching: the server ended in time.
    func cancel() {
        queue.sync {
            state.cancelled = true
            for source in sources { source.cancel() }
        }
    }
}
