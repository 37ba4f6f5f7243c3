import ChorusFiles
import NIOCore

/// Every connection the server holds, and which to close when one client, or all together, hold too many.
///
/// A connection is idle until it has sent a whole request, and again once that request's response has gone:
/// one that sends nothing, half a head, or a body slowly holds a descriptor and asks nothing of the server yet.
/// A connection whose request is complete, or that has asked to become a WebSocket, is busy. A new connection
/// that takes its client's address past `perAddress` closes that address's oldest idle connection; one that
/// takes the server past `total` less `reserve` closes the oldest idle connection of any address. The server
/// therefore keeps accepting (so `/health` is reached) while one client reopens idle connections as fast as
/// they are closed, and that client's flood costs its own connections first. A new connection from an address
/// whose connections are all busy and at its cap is closed instead. `reserve` leaves room for the closes under
/// way: Hummingbird stops accepting at `total` (connections still closing count there), which is what keeps the
/// process below its descriptor limit.
final class OpenConnections: Sendable {
    /// What the server does with a connection it has just accepted.
    enum Admission: Equatable {
        /// Served (older idle connections may have been closed to make room for it).
        case admitted
        /// Closed at once: its address holds `perAddress` connections, all busy.
        case refused
    }

    let total: Int
    let perAddress: Int
    let reserve: Int
    private let metrics: ServerMetrics?
    private let state = Locked(State())

    private struct Entry {
        let channel: any Channel
        let address: String
        let order: UInt64
        var busy = false
        /// Chosen to be closed; it no longer counts against its address or the total.
        var closing = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Connections not closing, in all and per address.
        var live = 0
        var liveByAddress: [String: Int] = [:]
        var next: UInt64 = 0
        var closedIdle = 0
        var refused = 0
    }

    /// - Parameters:
    ///   - total: the connections the server holds at once (the descriptor bound).
    ///   - perAddress: the connections one client address holds at once.
    ///   - metrics: where the connections closed for the caps are counted.
    init(total: Int, perAddress: Int, metrics: ServerMetrics? = nil) {
        self.total = max(1, total)
        self.perAddress = max(1, min(perAddress, total))
        // One in sixteen, at most 32: room for the closes that have been asked for and not yet done.
        self.reserve = min(32, self.total / 16)
        self.metrics = metrics
    }

    /// Counts `channel` in and closes what it displaces; `.refused` when `channel` itself is to be closed.
    func accept(_ channel: any Channel) -> Admission {
        let address = channel.remoteAddress?.ipAddress ?? "local"
        let id = ObjectIdentifier(channel)
        var evicted: [any Channel] = []
        let admission: Admission = state.withLock { state in
            state.entries[id] = Entry(channel: channel, address: address, order: state.next)
            state.next += 1
            state.live += 1
            state.liveByAddress[address, default: 0] += 1
            if state.liveByAddress[address, default: 0] > perAddress {
                guard let oldest = Self.oldestIdle(in: state, address: address, sparing: id) else {
                    Self.markClosing(id, in: &state)
                    state.refused += 1
                    return .refused
                }
                evicted.append(Self.markClosing(oldest, in: &state))
                state.closedIdle += 1
            }
            if state.live > total - reserve, let oldest = Self.oldestIdle(in: state, address: nil, sparing: id) {
                evicted.append(Self.markClosing(oldest, in: &state))
                state.closedIdle += 1
            }
            return .admitted
        }
        for channel in evicted { channel.close(promise: nil) }
        if !evicted.isEmpty { metrics?.countConnectionsClosed(reason: "idle_displaced", evicted.count) }
        if admission == .refused { metrics?.countConnectionsClosed(reason: "address_full") }
        return admission
    }

    /// `channel` has closed.
    func closed(_ channel: any Channel) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: ObjectIdentifier(channel)), !entry.closing else { return }
            Self.uncount(entry, in: &state)
        }
    }

    /// Whether `channel` has a whole request waiting for, or getting, its response (or became a WebSocket).
    func setBusy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.busy = busy }
    }

    /// Connections open now (closing ones included), idle connections closed to make room, and new connections
    /// refused, since the server started.
    var counts: (open: Int, closedIdle: Int, refused: Int) {
        state.withLock { ($0.entries.count, $0.closedIdle, $0.refused) }
    }

    /// The oldest idle connection that is not closing, of `address` (any when nil), other than `sparing`.
    private static func oldestIdle(in state: State, address: String?, sparing: ObjectIdentifier) -> ObjectIdentifier? {
        var found: (id: ObjectIdentifier, order: UInt64)?
        for (id, entry) in state.entries where !entry.busy && !entry.closing && id != sparing {
            if let address, entry.address != address { continue }
            if found.map({ entry.order < $0.order }) ?? true { found = (id, entry.order) }
        }
        return found?.id
    }

    @discardableResult
    private static func markClosing(_ id: ObjectIdentifier, in state: inout State) -> any Channel {
        let entry = state.entries[id]!
        state.entries[id]?.closing = true
        uncount(entry, in: &state)
        return entry.channel
    }

    private static func uncount(_ entry: Entry, in state: inout State) {
        state.live -= 1
        state.liveByAddress[entry.address, default: 1] -= 1
        if state.liveByAddress[entry.address] == 0 { state.liveByAddress[entry.address] = nil }
    }
}
