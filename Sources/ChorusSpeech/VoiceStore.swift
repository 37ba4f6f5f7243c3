import Foundation

/// An engine's voices on disk: one folder per voice, named by its id (`VoiceID`), in one voices folder.
///
/// Every engine keeps its cloned voices here, so they share one behaviour: a voice is written into a hidden
/// staging folder and put in place only once complete; replacing a voice swaps the new folder in atomically,
/// so the old voice stays usable until the new one is whole (a kill at any moment leaves one or the other);
/// two writers of one id never both succeed; a voice folder that is damaged is listed as unusable with why,
/// and the others keep working.
public struct VoiceStore: Sendable {
    /// The folder holding one sub-folder per voice.
    public let folder: URL
    /// The engine whose voices these are, for messages.
    public let engine: String

    public init(folder: URL, engine: String) {
        self.folder = folder
        self.engine = engine
    }

    /// What the voices folder holds: the voices `read` made of their folders, sorted by id, and the folders
    /// that are not usable voices, with why.
    public struct Contents<Entry: Sendable>: Sendable {
        public var voices: [Entry]
        public var unusable: [UnusableVoice]

        public init(voices: [Entry] = [], unusable: [UnusableVoice] = []) {
            self.voices = voices
            self.unusable = unusable
        }

        /// The voice `name` names (`id` reads an entry's id), or the first when `name` is nil; throws
        /// `SpeechError.noVoices`, `.unusableVoice` (with why) or `.unknownVoice` (with the ids there are).
        public func entry(_ name: String?, engine: String, id: (Entry) -> String) throws -> Entry {
            guard let first = voices.first else { throw SpeechError.noVoices(engine: engine) }
            guard let name else { return first }
            if let unusable = unusable.first(where: { $0.id == name }) {
                throw SpeechError.unusableVoice(name, engine: engine, problem: unusable.problem)
            }
            guard let found = voices.first(where: { id($0) == name }) else {
                throw SpeechError.unknownVoice(name, engine: engine, available: voices.map(id))
            }
            return found
        }
    }

    /// Each voice folder through `read(id, folder)`, sorted by id. Hidden entries (voices being written) and
    /// plain files are not voices. A folder `read` throws for, or whose name is an id already listed in another
    /// Unicode form (the first in sorted order wins), is listed as unusable with the reason.
    public func contents<Entry: Sendable>(_ read: (String, URL) throws -> Entry) -> Contents<Entry> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var contents = Contents<Entry>()
        var seen: [String: String] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name, isDirectory: true)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            let key = VoiceID.collisionKey(name)
            if let first = seen[key] {
                contents.unusable.append(UnusableVoice(
                    id: name, problem: "its id is '\(first)' written in another Unicode form, and '\(first)' is installed; remove one of the two folders"))
                continue
            }
            seen[key] = name
            do {
                // A folder removed while it was read is not listed (it is gone); one replaced is read again.
                if let entry = try Self.readSteady(url, { try read(name, url) }) { contents.voices.append(entry) }
            } catch {
                contents.unusable.append(UnusableVoice(id: name, problem: Self.problem(error)))
            }
        }
        return contents
    }

    /// `read()` of voice folder `folder`, whole: the folder and its files are stamped (`FolderStamp`: identity,
    /// size, time of change) before and after, and a read that a replace overlapped is done again, so what is
    /// read is all one voice's, the old or the new, never files of both. Nil when the folder was removed
    /// meanwhile. A folder that keeps changing (four reads) is read as the damaged voice it looks like.
    public static func readSteady<T>(_ folder: URL, _ read: () throws -> T) throws -> T? {
        var result: Result<T, any Error> = .failure(VoiceStoreError.damaged("it kept changing while it was read"))
        for _ in 0..<4 {
            let before = FolderStamp(folder)
            guard !before.items.isEmpty else { return nil }
            result = Result { try read() }
            let after = FolderStamp(folder)
            guard !after.items.isEmpty else { return nil }
            if before == after { return try result.get() }
        }
        return try result.get()
    }

    /// `contents` of a voice whose folder must hold `files`: a folder missing one is unusable ("it is incomplete
    /// (a, b missing)").
    public func contents<Entry: Sendable>(requiring files: [String], _ read: (String, URL) throws -> Entry) -> Contents<Entry> {
        contents { id, url in
            let missing = files.filter { !FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path) }
            guard missing.isEmpty else { throw VoiceStoreError.incomplete(missing: missing) }
            return try read(id, url)
        }
    }

    /// `id` in NFC, after checking that it can name a voice here: the `VoiceID` rule, and no voice whose id
    /// differs from it only by Unicode form or width; an installed voice of the same id is refused unless
    /// `replacing`. Called before any model work, so a bad id fails fast.
    public func checkedNewID(_ id: String, replacing: Bool) throws -> String {
        let normalized = try VoiceID.checked(id)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw SpeechError.voicesFolderIsAFile(path: folder.path)
        }
        let key = VoiceID.collisionKey(normalized)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !name.hasPrefix(".") && VoiceID.collisionKey(name) == key {
            if name.unicodeScalars.elementsEqual(normalized.unicodeScalars) {
                if replacing { continue }
                throw SpeechError.voiceExists(normalized, engine: engine)
            }
            throw SpeechError.invalidVoiceID(VoiceID.excerpt(of: id), problem:
                "the installed voice '\(VoiceID.excerpt(of: name))' differs from it only in Unicode form or width; pick a clearly different id")
        }
        return normalized
    }

    /// Writes voice `id`: `fill` writes its files into a hidden staging folder, which is then put in place. A
    /// new id is put in place only if no voice took it meanwhile (`SpeechError.voiceExists` otherwise); with
    /// `replacing`, an installed voice is swapped out in one step and then deleted. Returns the voice's folder.
    @discardableResult
    public func write(id: String, replacing: Bool = false, _ fill: (URL) throws -> Void) throws -> URL {
        let id = try checkedNewID(id, replacing: replacing)
        let destination = folder.appendingPathComponent(id, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sweepLeftovers()
        let staging = folder.appendingPathComponent(".\(id).\(UUID().uuidString).partial", isDirectory: true)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: staging) }  // the old voice, after a swap
        try fill(staging)
        switch FolderRename.move(staging, to: destination, replacing: replacing) {
        case .moved: break
        case .destinationExists: throw SpeechError.voiceExists(id, engine: engine)
        case .failed(let code):
            throw SpeechError.voiceNotWritten(id, folder: folder.path, reason: String(cString: strerror(code)))
        }
        return destination
    }

    /// Deletes voice `id`: renamed away first, so no reader sees it half deleted.
    public func remove(id: String) throws {
        let destination = folder.appendingPathComponent(id, isDirectory: true)
        var isFolder: ObjCBool = false
        guard !id.isEmpty, !id.hasPrefix("."), !id.contains("/"),
              FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), isFolder.boolValue
        else {
            throw SpeechError.unknownVoice(id, engine: engine, available: [])
        }
        let doomed = folder.appendingPathComponent(".\(id).\(UUID().uuidString).removed", isDirectory: true)
        guard rename(destination.path, doomed.path) == 0 else {
            // Another remover renamed it first: to this one the voice is already gone.
            if errno == ENOENT { throw SpeechError.unknownVoice(id, engine: engine, available: []) }
            throw SpeechError.voiceNotWritten(id, folder: folder.path, reason: String(cString: strerror(errno)))
        }
        try? FileManager.default.removeItem(at: doomed)
    }

    /// How long a hidden staging or removed folder may stay before a write takes it for a killed process's
    /// leftover and deletes it (a live writer finishes long before).
    static let leftoverAge: TimeInterval = 3_600

    /// Deletes the hidden folders killed writers left (`.<id>.<uuid>.partial`, `.removed`) once they are old.
    private func sweepLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(".") && (name.hasSuffix(".partial") || name.hasSuffix(".removed")) {
            let url = folder.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? Date()
            if Date().timeIntervalSince(modified) > Self.leftoverAge { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// An error as the sentence a listing shows.
    static func problem(_ error: any Error) -> String { String(describing: error) }
}

/// Why a voice folder is not a usable voice.
public enum VoiceStoreError: Error, Equatable, CustomStringConvertible {
    case incomplete(missing: [String])
    case damaged(String)

    public var description: String {
        switch self {
        case .incomplete(let missing): "it is incomplete (\(missing.joined(separator: ", ")) missing)"
        case .damaged(let problem): problem
        }
    }
}

/// A cloning engine that keeps its voices in a `VoiceStore`, one folder of files per voice: registering and
/// removing come with it, so every such engine stages, replaces and removes voices the same way and drops what
/// it kept of a voice that changed.
public protocol StoredVoices: VoiceCloning {
    /// What the engine's clones hold (`ClonedVoice.conditioning`).
    associatedtype Conditioning: Sendable
    /// Where its voices are.
    var voiceStore: VoiceStore { get }
    /// Writes `conditioning`'s files into `folder` (a staging folder the store puts in place).
    func writeVoice(_ conditioning: Conditioning, to folder: URL) throws
    /// Drops what the engine kept of voice `id` (read conditioning, spoken audio), after it changed.
    func forgetVoice(_ id: String)
}

extension StoredVoices {
    /// Writes `voice` into the store (a new id unless `replacing`) and drops what was kept of an old one.
    public func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        guard voice.voice.engine == engineName, let conditioning = voice.conditioning as? Conditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        try voiceStore.write(id: voice.voice.id, replacing: replacing) { try writeVoice(conditioning, to: $0) }
        forgetVoice(voice.voice.id)
    }

    /// Deletes voice `id` (usable or not) from the store and what was kept of it.
    public func removeVoice(id: String) async throws {
        guard voices.contains(where: { $0.id == id }) || unusableVoices.contains(where: { $0.id == id }) else {
            throw SpeechError.unknownVoice(id, engine: engineName, available: voices.map(\.id))
        }
        try voiceStore.remove(id: id)
        forgetVoice(id)
    }
}
