import Foundation

/// Audio of chunks already spoken, keyed by the chunk's text and the voice (the seed app's `ChunkCache`), so
/// editing one sentence of a long text re-synthesises only the chunk it is in. At most `limit` chunks are
/// kept; the least recently used goes first.
public final class ChunkCache: @unchecked Sendable {
    /// A chunk as it was spoken: its text (before `punc_norm`) and the voice's id.
    public struct Key: Hashable, Sendable {
        public var text: String
        public var voice: String

        public init(text: String, voice: String) {
            self.text = text
            self.voice = voice
        }
    }

    public let limit: Int
    private let lock = NSLock()
    private var entries: [Key: [Float]] = [:]
    private var order: [Key] = []
    private(set) var hits = 0, misses = 0

    public init(limit: Int = 64) {
        precondition(limit >= 0, "a chunk cache holds 0 or more chunks")
        self.limit = limit
    }

    /// The audio of `key`, if kept; a hit makes it the most recently used.
    public func audio(for key: Key) -> [Float]? {
        lock.withLock {
            guard let audio = entries[key] else { misses += 1; return nil }
            hits += 1
            order.removeAll { $0 == key }
            order.append(key)
            return audio
        }
    }

    /// Keeps `audio` for `key`, dropping the least recently used chunk beyond the limit.
    public func store(_ audio: [Float], for key: Key) {
        guard limit > 0 else { return }
        lock.withLock {
            if entries.updateValue(audio, forKey: key) != nil { order.removeAll { $0 == key } }
            order.append(key)
            while order.count > limit { entries[order.removeFirst()] = nil }
        }
    }

    /// Chunks kept.
    public var count: Int { lock.withLock { entries.count } }
    /// Lookups that found a chunk and that did not.
    public var statistics: (hits: Int, misses: Int) { lock.withLock { (hits, misses) } }

    /// Forgets every chunk of `voice` (after the voice is replaced).
    public func removeAll(voice: String) {
        lock.withLock {
            order.removeAll { $0.voice == voice }
            entries = entries.filter { $0.key.voice != voice }
        }
    }
}

/// The engine's state for anyone watching (the seed app's status broadcast): each subscriber gets the newest
/// value at once and then every change; a slow subscriber sees only the newest, never blocking synthesis.
public final class StatusBroadcast<Status: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Status
    private var subscribers: [UUID: AsyncStream<Status>.Continuation] = [:]

    public init(_ initial: Status) { current = initial }

    /// The newest status.
    public var value: Status { lock.withLock { current } }

    /// A stream that starts with the newest status and yields each change; ends when the caller stops reading.
    public func stream() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: Status.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        lock.withLock {
            subscribers[id] = continuation
            continuation.yield(current)
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the status and tells every subscriber.
    public func send(_ status: Status) {
        lock.withLock {
            current = status
            for continuation in subscribers.values { continuation.yield(status) }
        }
    }

    /// Subscribers still reading.
    public var subscriberCount: Int { lock.withLock { subscribers.count } }
}
