import ChorusFiles
@testable import ChorusHub
import ChorusModels
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

/// How the fake hub misbehaves, and what it saw; shared with the handlers, so behind a lock.
final class HubScript: @unchecked Sendable {
    private let lock = NSLock()
    private var _requests: [(path: String, range: String?, authorization: String?)] = []
    private var _failuresLeft = 0
    private var _dropsLeft = 0

    /// Bytes served before a dropped connection is cut.
    var dropAfter = 0
    /// Pause between 16 KB pieces of a file.
    var pause: Duration = .zero
    /// A token the hub requires (401 without one, 403 with another).
    var token: String?
    /// Revisions the hub knows; others give 404.
    var revisions: Set<String> = ["main"]
    /// File path to a byte offset served wrong (the ETag still names the right hash).
    var corrupt: [String: Int] = [:]
    /// PyPI projects served only through `/pypi/<project>/json`, with relative file addresses.
    var projectDocumentOnly: Set<String> = []
    /// The port, set once the server listens.
    var port = 0

    func withLock<T>(_ body: () -> T) -> T { lock.lock(); defer { lock.unlock() }; return body() }
    var requests: [(path: String, range: String?, authorization: String?)] { withLock { _requests } }
    func record(_ path: String, _ range: String?, _ authorization: String?) {
        withLock { _requests.append((path, range, authorization)) }
    }
    /// The next `count` requests answer 503.
    func fail(next count: Int) { withLock { _failuresLeft = count } }
    func takeFailure() -> Bool { withLock { if _failuresLeft > 0 { _failuresLeft -= 1; return true }; return false } }
    /// The next `count` file bodies are cut after `dropAfter` bytes.
    func drop(next count: Int) { withLock { _dropsLeft = count } }
    func takeDrop() -> Bool { withLock { if _dropsLeft > 0 { _dropsLeft -= 1; return true }; return false } }
    /// How many requests reached the CDN (file bodies).
    var cdnRequests: Int { requests.filter { $0.path.hasPrefix("/cdn/") || $0.path.hasPrefix("/files/") }.count }
}

struct CutShort: Error {}

/// A local stand-in for the Hugging Face hub and PyPI on 127.0.0.1. `repo` files are served at
/// `/<repo>/resolve/<rev>/<path>` with a 302 to `/cdn/<sha256>` carrying `X-Linked-Etag` and
/// `X-Linked-Size`, as the hub does for LFS files; `wheels` at PyPI's JSON API and `/files/<name>`.
func withFakeHub(repo: String = "owner/model", files: [String: Data] = [:], wheels: [PyPIWheel: Data] = [:],
                 script: HubScript = HubScript(), _ body: @Sendable (_ base: String, _ script: HubScript) async throws -> Void)
    async throws {
    var blobs: [String: Data] = [:]
    var hashes: [String: String] = [:]
    for (path, data) in files {
        let hash = sha256(data)
        blobs[hash] = data
        hashes[path] = hash
    }
    let byHash = blobs
    let byPath = hashes
    let wheelBytes = Dictionary(uniqueKeysWithValues: wheels.map { ($0.key.filename, $0.value) })
    let releases = Dictionary(grouping: wheels.keys) { "\($0.package)/\($0.version)" }
    let router = Router()
    router.get("**") { request, _ -> Response in
        let path = request.uri.path
        script.record(path, request.headers[.range], request.headers[.authorization])
        if script.takeFailure() { return Response(status: .serviceUnavailable) }
        let prefix = "/\(repo)/resolve/"
        if path.hasPrefix(prefix) {
            if let token = script.token {
                guard let sent = request.headers[.authorization] else { return Response(status: .unauthorized) }
                guard sent == "Bearer \(token)" else { return Response(status: .forbidden) }
            }
            let rest = path.dropFirst(prefix.count)
            guard let slash = rest.firstIndex(of: "/"), script.revisions.contains(String(rest[..<slash])),
                  let hash = byPath[String(rest[rest.index(after: slash)...])] else { return Response(status: .notFound) }
            var headers = HTTPFields()
            // Another host name, as the hub's CDN is: the token must not follow the redirect.
            headers[.location] = "http://localhost:\(script.port)/cdn/\(hash)?path=\(rest[rest.index(after: slash)...])"
            headers[HTTPField.Name("X-Linked-Etag")!] = "\"\(hash)\""
            headers[HTTPField.Name("X-Linked-Size")!] = "\(byHash[hash]!.count)"
            return Response(status: .found, headers: headers)
        }
        if path.hasPrefix("/cdn/"), let data = byHash[String(path.dropFirst(5))] {
            var served = data
            let file = request.uri.queryParameters["path"].map(String.init) ?? ""
            if let offset = script.corrupt[file] { served[offset] ^= 0xFF }
            return serve(served, range: request.headers[.range], script: script)
        }
        if path.hasPrefix("/files/"), let data = wheelBytes[String(path.dropFirst(7))] {
            return serve(data, range: request.headers[.range], script: script)
        }
        if path.hasPrefix("/pypi/"), path.hasSuffix("/json") {
            // Projects named in `script.projectDocumentOnly` are served as some indexes do: only the
            // project's document, its `releases` giving addresses relative to it.
            let parts = path.split(separator: "/").map(String.init)  // pypi, package, [version,] json
            let package = parts[1]
            func entry(_ wheel: PyPIWheel, relative: Bool) -> [String: Any] {
                ["filename": wheel.filename,
                 "url": relative ? "../../files/\(wheel.filename)" : "http://127.0.0.1:\(script.port)/files/\(wheel.filename)",
                 "size": wheelBytes[wheel.filename]!.count, "digests": ["sha256": sha256(wheelBytes[wheel.filename]!)]]
            }
            let document: [String: Any]
            if parts.count == 4, !script.projectDocumentOnly.contains(package), let release = releases["\(package)/\(parts[2])"] {
                document = ["info": ["name": package], "urls": release.map { entry($0, relative: false) }]
            } else if parts.count == 3, case let mine = wheels.keys.filter({ $0.package == package }), !mine.isEmpty {
                let byVersion = Dictionary(grouping: mine, by: \.version).mapValues { $0.map { entry($0, relative: true) } }
                document = ["info": ["name": package], "releases": byVersion]
            } else {
                return Response(status: .notFound)
            }
            let json = try JSONSerialization.data(withJSONObject: document)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
        }
        return Response(status: .notFound)
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    // `.ahc`, not `.live`: `.live` connects a test client of its own at once, with a 5 s connect
    // timeout, and fails the test when a loaded machine (or a SIGSTOP) makes that connect take longer,
    // though the test never uses that client. `.ahc` connects only when asked to.
    try await app.test(.ahc(.http)) { client in
        script.port = client.port!
        try await body("http://127.0.0.1:\(client.port!)", script)
    }
}

/// A file body honouring `Range: bytes=N-` (206, or 416 past the end), cut short or slowed as `script` says.
private func serve(_ data: Data, range: String?, script: HubScript) -> Response {
    var start = 0
    var status = HTTPResponse.Status.ok
    var headers = HTTPFields()
    if let range, range.hasPrefix("bytes="), let from = Int(range.dropFirst(6).prefix { $0 != "-" }) {
        guard from < data.count else {
            headers[.contentRange] = "bytes */\(data.count)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        start = from
        status = .partialContent
        headers[.contentRange] = "bytes \(from)-\(data.count - 1)/\(data.count)"
    }
    let body = data[start...]
    headers[.contentLength] = "\(body.count)"
    let drop = body.count > script.dropAfter && script.takeDrop()
    let cut = script.dropAfter
    let pause = script.pause
    return Response(status: status, headers: headers, body: ResponseBody { writer in
        var offset = body.startIndex
        while offset < body.endIndex {
            let end = min(offset + 16_384, body.endIndex, drop ? body.startIndex + cut : body.endIndex)
            if end <= offset { throw CutShort() }
            try await writer.write(ByteBuffer(bytes: body[offset..<end]))
            offset = end
            if pause > .zero { try await Task.sleep(for: pause) }
        }
        try await writer.finish(nil)
    })
}

func sha256(_ data: Data) -> String {
    var hasher = SHA256()
    hasher.update(data)
    return hasher.finish()
}

/// Deterministic bytes that are not all alike.
func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ ($0 >> 9)) })
}

/// A fresh empty folder under the system's temporary folder.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-hub-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Settings for the fake hub at `base`: quick retries, a store and caches under `folder`.
///
/// The read timeout is a deadline for a hang, not a pace: the fake hub runs in the test's own process,
/// so when the machine is loaded both ends can stall together for seconds, and a timeout then retries
/// the download, which the tests counting requests see as a second download. With 5 s, a test stopped
/// for 6 s while it downloaded (SIGSTOP) failed that way: 3 or 4 requests to the CDN where 2 were expected.
func settings(_ base: String, in folder: URL, token: String? = nil, offline: Bool = false) -> HubSettings {
    HubSettings(endpoint: base, pypiEndpoint: base, token: token, offline: offline, offlineReason: offline ? "CHORUS_OFFLINE=1" : nil,
                huggingFaceCache: folder.appendingPathComponent("hf"), downloads: folder.appendingPathComponent("downloads"),
                parallelDownloads: 2, retry: RetryPolicy(attempts: 4, initialDelay: 0.01), readTimeout: 300)
}
