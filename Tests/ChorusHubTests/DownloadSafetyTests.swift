@testable import ChorusHub
import ChorusModels
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// What the downloader refuses, each refused at once (one request, no retries) with a `HubError` that
/// says why: the token kept to the hub's origin, redirects only to http(s) hosts the hub may send us
/// to, bodies no larger than they may be. Every server here listens on 127.0.0.1.
@Suite struct DownloadSafetyTests {
    /// A server on 127.0.0.1 that answers each path with `answer` and records what it was sent.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [(path: String, authorization: String?)] = []
        var requests: [(path: String, authorization: String?)] { lock.lock(); defer { lock.unlock() }; return seen }
        func record(_ path: String, _ authorization: String?) { lock.lock(); seen.append((path, authorization)); lock.unlock() }
    }

    private func serving(_ answer: @escaping @Sendable (String) -> Response,
                         _ body: @Sendable (_ base: String, _ recorder: Recorder) async throws -> Void) async throws {
        let recorder = Recorder()
        let router = Router()
        router.get("**") { request, _ -> Response in
            recorder.record(request.uri.path, request.headers[.authorization])
            return answer(request.uri.path)
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            .test(.ahc(.http)) { client in try await body("http://127.0.0.1:\(client.port!)", recorder) }
    }

    private static func redirect(to location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }

    /// A puller whose hub (and PyPI) is `base`, with 4 quick tries, so a retried failure shows as 4 requests.
    private func withDownloader(_ base: String, token: String? = nil, unknownSizeCap: Int = 16 << 30,
                                _ body: (FileDownloader, URL) async throws -> Void) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var hub = settings(base, in: folder, token: token)
        hub.maximumUnknownFileBytes = unknownSizeCap
        let puller = ModelPuller(store: ModelStore(root: folder.appendingPathComponent("models")), settings: hub)
        do {
            try await body(puller.downloader, folder)
        } catch {
            try await puller.shutdown()
            throw error
        }
        try await puller.shutdown()
    }

    @Test func theTokenGoesOnlyToTheHubsOriginNotAnotherPortOfItsHost() async throws {
        try await serving({ _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{}"))) }) { other, elsewhere in
            try await serving({ _ in Self.redirect(to: other + "/api.json") }) { hub, recorder in
                try await withDownloader(hub, token: "hf_secret") { downloader, _ in
                    _ = try await downloader.fetch(hub + "/start")
                }
                #expect(recorder.requests.map(\.authorization) == ["Bearer hf_secret"])
                #expect(elsewhere.requests.map(\.path) == ["/api.json"])
                #expect(elsewhere.requests.map(\.authorization) == [nil])
            }
        }
    }

    @Test(arguments: ["http+unix://%2Ftmp%2Fchorus-no-such.sock/x", "file:///etc/passwd", "gopher://127.0.0.1:70/1",
                      "ftp://127.0.0.1/x", "http://169.254.169.254/latest/meta-data/", "http://2852039166/latest",
                      "http://[fe80::1]/x", "http://[::ffff:169.254.169.254]/x"])
    func aRedirectToAnotherSchemeOrALinkLocalHostIsRefusedAtOnce(location: String) async throws {
        try await serving({ _ in Self.redirect(to: location) }) { hub, recorder in
            try await withDownloader(hub) { downloader, folder in
                let fetched = await #expect(throws: HubError.self) { _ = try await downloader.fetch(hub + "/pypi/x/json") }
                guard case .refusedAddress? = fetched else { Issue.record("\(String(describing: fetched))"); return }
                let downloaded = await #expect(throws: HubError.self) {
                    _ = try await downloader.download(hub + "/file", to: folder.appendingPathComponent("f"), expectedSize: nil,
                                                      expectedSHA256: nil) { _ in }
                }
                guard case .refusedAddress? = downloaded else { Issue.record("\(String(describing: downloaded))"); return }
            }
            #expect(recorder.requests.count == 2)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1"])
    func anUnsupportedSchemeIsRefusedAtOnceNotReportedAsUnreachable(address: String) async throws {
        try await withDownloader("http://127.0.0.1:9") { downloader, _ in
            let error = await #expect(throws: HubError.self) { _ = try await downloader.fetch(address) }
            #expect(error == .refusedAddress(url: address, reason: "only http and https addresses are downloaded, not \(address.prefix { $0 != ":" })"))
        }
    }

    @Test func privateHostsAreReachableOnlyFromALocalHub() throws {
        let folder = FileManager.default.temporaryDirectory
        let public_ = HubSettings(huggingFaceCache: folder, downloads: folder)
        for url in ["http://10.1.2.3/x", "http://127.0.0.1:8080/x", "http://localhost/x", "http://192.168.0.7/x",
                    "http://[::1]/x", "http://[fd00::1]/x", "http://0.0.0.0/x", "http://0x7f000001/x"] {
            #expect(throws: HubError.self, "\(url)") { try public_.permit(url) }
        }
        #expect(try public_.permit("https://cdn-lfs.huggingface.co/x").address.host == "cdn-lfs.huggingface.co")
        let local = HubSettings(endpoint: "http://127.0.0.1:8000", huggingFaceCache: folder, downloads: folder)
        #expect(try local.permit("http://10.1.2.3/x").address.reach == .local)
        #expect(throws: HubError.self) { try local.permit("http://169.254.169.254/x") }
    }

    @Test func theTokenFollowsNeitherAnotherSchemeNorAnotherPort() throws {
        let folder = FileManager.default.temporaryDirectory
        let downloader = HubSettings(endpoint: "https://huggingface.co", token: "t", huggingFaceCache: folder, downloads: folder)
        #expect(try downloader.permit("https://huggingface.co/a").sendsToken)
        #expect(try downloader.permit("https://HuggingFace.co:443/a").sendsToken)
        #expect(try !downloader.permit("http://huggingface.co/a").sendsToken)
        #expect(try !downloader.permit("https://huggingface.co:8443/a").sendsToken)
        #expect(try !downloader.permit("https://cdn-lfs.huggingface.co/a").sendsToken)
    }

    @Test func anOversizedJSONDocumentIsRefusedAtOnce() async throws {
        let big = String(repeating: "x", count: 5_000)
        try await serving({ _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: big))) }) { hub, recorder in
            try await withDownloader(hub) { downloader, _ in
                let error = await #expect(throws: HubError.self) { _ = try await downloader.fetch(hub + "/pypi/x/json", limit: 1_000) }
                #expect(error == .tooLarge(url: hub + "/pypi/x/json", limit: 1_000))
            }
            #expect(recorder.requests.count == 1)
        }
    }

    @Test func aFileOfUnknownSizeStopsAtTheCapAndLeavesNothing() async throws {
        // Chunked, with no length anywhere: only the cap can stop it.
        let answer: @Sendable (String) -> Response = { _ in
            Response(status: .ok, body: ResponseBody { writer in
                for _ in 0..<64 { try await writer.write(ByteBuffer(repeating: 7, count: 16_384)) }
                try await writer.finish(nil)
            })
        }
        try await serving(answer) { hub, recorder in
            try await withDownloader(hub, unknownSizeCap: 100_000) { downloader, folder in
                let target = folder.appendingPathComponent("big.bin")
                let error = await #expect(throws: HubError.self) {
                    _ = try await downloader.download(hub + "/big.bin", to: target, expectedSize: nil, expectedSHA256: nil) { _ in }
                }
                #expect(error == .tooLarge(url: hub + "/big.bin", limit: 100_000))
                #expect(!FileManager.default.fileExists(atPath: target.path))
                #expect(!FileManager.default.fileExists(atPath: target.path + ".incomplete"))
            }
            #expect(recorder.requests.count == 1)
        }
    }

    @Test func aDeclaredSizeOverTheCapIsRefusedBeforeTheBody() async throws {
        let answer: @Sendable (String) -> Response = { path in
            path == "/big.bin"
                ? Self.redirect(to: "/cdn/big", headers: [HTTPField.Name("X-Linked-Size")!: "1099511627776"])
                : Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "never")))
        }
        try await serving(answer) { hub, recorder in
            try await withDownloader(hub, unknownSizeCap: 100_000) { downloader, folder in
                let error = await #expect(throws: HubError.self) {
                    _ = try await downloader.download(hub + "/big.bin", to: folder.appendingPathComponent("big.bin"),
                                                      expectedSize: nil, expectedSHA256: nil) { _ in }
                }
                #expect(error == .tooLarge(url: hub + "/big.bin", limit: 100_000))
            }
            #expect(recorder.requests.map(\.path) == ["/big.bin"])
        }
    }
}
