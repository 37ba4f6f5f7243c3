import Foundation

/// An installed voice as its engine read it from its `VoiceStore` folder: its description and what the engine
/// conditions on.
public struct StoredVoice<Conditioning: Sendable>: Sendable {
    public var voice: Voice
    public var conditioning: Conditioning

    public init(voice: Voice, conditioning: Conditioning) {
        self.voice = voice
        self.conditioning = conditioning
    }
}

extension VoiceStore {
    /// An engine's voices as it read them from the store, kept between requests. A listing looks at each voice
    /// folder (the identity, size and time of change of the folder and its files: `FolderStamp`) and reads again
    /// only a folder that changed (a replace swaps in another folder; a file written over changes its stamp) or
    /// that `forget(_:)` dropped; a damaged voice's reason is kept the same way. So a request costs a look at the
    /// folders, not a read of every voice, and a voice replaced or removed by another process is seen at once.
    public final class Cache<Conditioning: Sendable>: @unchecked Sendable {
        public let store: VoiceStore
        private let files: [String]
        private let read: @Sendable (String, URL) throws -> StoredVoice<Conditioning>
        private let changed: @Sendable (String) -> Void
        private let lock = NSLock()
        private var kept: [String: (stamp: FolderStamp, read: Result<StoredVoice<Conditioning>, any Error>)] = [:]

        /// The voices of `store`, each folder holding `files` (see `VoiceStore.contents(requiring:_:)`) and read
        /// by `read`; `changed` is told the id of a voice kept before that changed or went (for what an engine
        /// keeps beside it, such as audio spoken in it).
        public init(store: VoiceStore, requiring files: [String], changed: @escaping @Sendable (String) -> Void = { _ in },
                    read: @escaping @Sendable (String, URL) throws -> StoredVoice<Conditioning>) {
            self.store = store
            self.files = files
            self.read = read
            self.changed = changed
        }

        /// The voices there are now, sorted by id, and those that cannot be used, with why.
        public var contents: Contents<StoredVoice<Conditioning>> {
            var listed: Set<String> = []
            var renewed: [String] = []
            let contents = store.contents(requiring: files) { id, folder in
                listed.insert(id)
                let stamp = FolderStamp(folder)
                let previous = lock.withLock { kept[id] }
                if let previous, previous.stamp == stamp { return try previous.read.get() }
                let read = Result { try self.read(id, folder) }
                lock.withLock { kept[id] = (stamp, read) }
                if previous != nil { renewed.append(id) }
                return try read.get()
            }
            let gone = lock.withLock {
                let gone = kept.keys.filter { !listed.contains($0) }
                for id in gone { kept[id] = nil }
                return gone
            }
            for id in renewed + gone { changed(id) }
            return contents
        }

        /// The voice `id` names, or the first when nil (see `Contents.entry`).
        public func voice(_ id: String?) throws -> StoredVoice<Conditioning> {
            try contents.entry(id, engine: store.engine, id: \.voice.id)
        }

        /// Drops what was read of voice `id`, so the next listing reads its folder again.
        public func forget(_ id: String) {
            _ = lock.withLock { kept.removeValue(forKey: id) }
        }
    }
}
