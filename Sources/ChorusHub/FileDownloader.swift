import AsyncHTTPClient
import ChorusModels
import Foundation
import NIOCore
import NIOHTTP1

/// A file `FileDownloader` finished: verified and renamed into place.
struct DownloadedFile: Sendable {
    /// Its SHA-256, computed while it was written.
    var sha256: String
    var size: Int
}

/// Downloads one URL into a file. The bytes go to `<destination>.incomplete` first; a later call
/// resumes it with an HTTP Range request (a 200 or a changed ETag starts it over, a 416 on a
/// complete file ends it). Redirects are followed by hand so the hub's `X-Linked-Etag` (the SHA-256
/// of a large file) is read before the CDN answers, and checked on the way: only http(s), never a
/// link-local host, a private one only when the hub is private itself (`permit`); the token is only
/// ever sent to the hub's own origin (scheme, host and port). 5xx, 429, dropped connections and
/// timeouts are retried with back-off, each retry resuming where the last stopped; a refused address
/// or an oversized body is not. A file is never written past its recorded size, or past
/// `HubSettings.maximumUnknownFileBytes` when none is recorded. The SHA-256 is checked before the
/// rename; a bad copy is deleted.
struct FileDownloader: Sendable {
    let client: HTTPClient
    let settings: HubSettings

    /// A failure worth another try.
    private enum Transient: Error {
        case status(Int, url: String)
        case transport(any Error, host: String)
        case cutShort
    }

    /// Runs `body` up to `settings.retry.attempts` times while it fails with a transient error,
    /// waiting longer each time; the last failure is turned into a `HubError`.
    private func retrying<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as Transient {
                guard attempt < settings.retry.attempts else {
                    switch error {
                    case .status(let status, let url): throw HubError.server(url: url, status: status)
                    case .transport(let cause, let host): throw HubError.unreachable(host: host, reason: Self.reason(cause))
                    case .cutShort: throw HubError.failed(what: "Downloading", reason: "the connection kept closing early")
                    }
                }
                try await Task.sleep(nanoseconds: UInt64(settings.retry.delay(after: attempt) * 1e9))
                attempt += 1
            }
        }
    }

    /// A short reason for a transport error.
    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return "\(error)" }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return String(describing: error)
    }

    /// The host part of `url`, for messages and for deciding where the token may go.
    static func host(of url: String) -> String {
        URLComponents(string: url)?.host ?? url
    }

    /// Sends a GET for `url` with `headers`, the token added when it goes to the hub's origin.
    private func send(_ url: String, headers: [(String, String)]) async throws -> HTTPClientResponse {
        if settings.offline {
            throw HubError.offline(model: url, reason: settings.offlineReason ?? "offline")
        }
        let sendsToken = try settings.permit(url).sendsToken
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "chorus-models/1")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if sendsToken, let token = settings.token {
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        do {
            return try await client.execute(request, deadline: .now() + .hours(24))
        } catch let error as HubError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Transient.transport(error, host: Self.host(of: url))
        }
    }

    /// Starts a GET for `url` whose body the caller may stream into a file (`StreamedResponse`), with
    /// the same headers and token rule as `send`; a download's responses share one event loop.
    private func start(_ url: String, headers: [(String, String)], on eventLoop: any EventLoop) throws -> StreamedResponse {
        if settings.offline {
            throw HubError.offline(model: url, reason: settings.offlineReason ?? "offline")
        }
        let sendsToken = try settings.permit(url).sendsToken
        var fields = HTTPHeaders([("User-Agent", "chorus-models/1")] + headers)
        if sendsToken, let token = settings.token {
            fields.add(name: "Authorization", value: "Bearer \(token)")
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, method: .GET, headers: fields)
        } catch {
            throw HubError.refusedAddress(url: url, reason: "it is not an address this client can request (\(error))")
        }
        return StreamedResponse(request, client: client, on: eventLoop, deadline: .now() + .hours(24))
    }

    /// Turns what a streamed request threw into a `HubError`, a cancellation or a transient failure.
    private static func classify(_ error: any Error, url: String) -> any Error {
        if error is HubError || error is CancellationError { return error }
        if Task.isCancelled { return CancellationError() }
        return Transient.transport(error, host: host(of: url))
    }

    /// The whole body of `url` (a small JSON document), following redirects and retrying.
    func fetch(_ url: String, limit: Int = 16 << 20) async throws -> Data {
        try await retrying {
            var current = url
            for _ in 0...10 {
                let response = try await send(current, headers: [("Accept", "application/json")])
                let status = Int(response.status.code)
                if let next = Self.redirect(response, from: current) { current = next; continue }
                try Self.check(status: status, url: current, hadToken: settings.token != nil)
                if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > limit {
                    throw HubError.tooLarge(url: current, limit: limit)
                }
                do {
                    let body = try await response.body.collect(upTo: limit)
                    return Data(body.readableBytesView)
                } catch is NIOTooManyBytesError {
                    throw HubError.tooLarge(url: current, limit: limit)
                } catch {
                    throw Transient.transport(error, host: Self.host(of: current))
                }
            }
            throw HubError.failed(what: "Fetching \(url)", reason: "more than 10 redirects")
        }
    }

    /// The absolute address a 3xx response points to, nil for any other response.
    private static func redirect(_ response: HTTPClientResponse, from url: String) -> String? {
        redirect(status: response.status, headers: response.headers, from: url)
    }

    private static func redirect(status: HTTPResponseStatus, headers: HTTPHeaders, from url: String) -> String? {
        guard [301, 302, 303, 307, 308].contains(status.code),
              let location = headers.first(name: "Location"),
              let base = URL(string: url), let next = URL(string: location, relativeTo: base) else { return nil }
        return next.absoluteString
    }

    /// Throws the `HubError` or transient failure a status other than 200 and 206 stands for.
    private static func check(status: Int, url: String, hadToken: Bool) throws {
        switch status {
        case 200, 206: return
        case 401, 403: throw HubError.unauthorized(url: url, status: status, hadToken: hadToken)
        case 404: throw HubError.notFound(url: url)
        case 408, 429, 500...599: throw Transient.status(status, url: url)
        default: throw HubError.server(url: url, status: status)
        }
    }

    /// The ETag a response carries: the hub's `X-Linked-Etag` for a large file, else `ETag`, unquoted.
    private static func etag(_ headers: HTTPHeaders) -> String? {
        guard var tag = headers.first(name: "X-Linked-Etag") ?? headers.first(name: "ETag") else {
            return nil
        }
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        return tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// Whether `text` is 64 hex digits, as the ETag of a file the hub stores in LFS (its SHA-256).
    static func isSHA256(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy(\.isHexDigit)
    }

    /// Downloads `url` to `destination`, resuming `<destination>.incomplete`; `expectedSize` and
    /// `expectedSHA256` when known (else the hub's LFS ETag serves as the hash). `progress` gets byte
    /// counts as they arrive, starting with the bytes a resumed file already had.
    func download(_ url: String, to destination: URL, expectedSize: Int?, expectedSHA256: String?,
                  progress: @escaping @Sendable (Int) -> Void) async throws -> DownloadedFile {
        let partial = URL(fileURLWithPath: destination.path + ".incomplete")
        let tagFile = URL(fileURLWithPath: destination.path + ".incomplete.etag")
        // A file is never written past the size it may have, so a hub that sends without end fills no disk.
        let limit = expectedSize ?? settings.maximumUnknownFileBytes
        var reported = 0
        let result: DownloadedFile
        do {
            result = try await retrying {
            let sink = try PartialFile(at: partial)
            let eventLoop = client.eventLoopGroup.next()
            if let expectedSize, sink.size > expectedSize { try sink.restart() }
            if sink.size > reported { progress(sink.size - reported); reported = sink.size }
            var current = url
            var etag: String?
            var total: Int?
            var redirects = 0
            while true {
                let ranged = sink.size > 0
                if ranged, let expectedSize, sink.size == expectedSize, etag == nil, redirects == 0 {
                    break // complete already: only verification is left
                }
                let response = try start(current, headers: ranged ? [("Range", "bytes=\(sink.size)-")] : [], on: eventLoop)
                defer { response.discard() }
                let head: HTTPResponseHead
                do {
                    head = try await response.head()
                } catch {
                    throw Self.classify(error, url: current)
                }
                let status = Int(head.status.code)
                if etag == nil, let tag = Self.etag(head.headers) {
                    etag = tag
                    let stored = try? String(contentsOf: tagFile, encoding: .utf8)
                    if let stored, stored != tag, sink.size > 0 {
                        // The remote file changed since the partial one was started: start over.
                        try sink.restart()
                        reported = 0
                        if status != 200 { continue }
                    }
                    try? Data(tag.utf8).write(to: tagFile)
                }
                if total == nil, let linked = head.headers.first(name: "X-Linked-Size").flatMap(Int.init) { total = linked }
                if let total, total > limit { throw HubError.tooLarge(url: current, limit: limit) }
                if let next = Self.redirect(status: head.status, headers: head.headers, from: current) {
                    redirects += 1
                    guard redirects <= 10 else { throw HubError.failed(what: "Downloading \(url)", reason: "more than 10 redirects") }
                    current = next
                    continue
                }
                if status == 416 {
                    let whole = head.headers.first(name: "Content-Range").flatMap(Self.completeLength) ?? expectedSize
                    if let whole, whole == sink.size { break }
                    try sink.restart()
                    reported = 0
                    throw Transient.cutShort
                }
                try Self.check(status: status, url: current, hadToken: settings.token != nil)
                if status == 200 {
                    if sink.size > 0 { try sink.restart(); reported = 0 }
                    if let length = head.headers.first(name: "Content-Length").flatMap(Int.init) { total = length }
                } else {
                    let range = head.headers.first(name: "Content-Range") ?? ""
                    guard Self.rangeStart(range) == sink.size else {
                        try sink.restart()
                        reported = 0
                        throw Transient.cutShort
                    }
                    if let whole = Self.completeLength(range) { total = whole }
                }
                if let total, total > limit { throw HubError.tooLarge(url: current, limit: limit) }
                do {
                    try await response.body(into: sink, room: limit - sink.size, limit: limit, url: current, progress: progress)
                } catch {
                    sink.abandon()
                    reported = sink.size
                    throw Self.classify(error, url: current)
                }
                reported = sink.size
                if let total, sink.size < total { throw Transient.cutShort }
                break
            }
            let size = sink.size
            let hash = try sink.finish()
            return DownloadedFile(sha256: hash, size: size)
            }
        } catch let error as HubError {
            if case .tooLarge = error {
                try? FileManager.default.removeItem(at: partial)
                try? FileManager.default.removeItem(at: tagFile)
            }
            throw error
        }
        let expectedHash = expectedSHA256?.lowercased()
            ?? (try? String(contentsOf: tagFile, encoding: .utf8)).flatMap { Self.isSHA256($0) ? $0.lowercased() : nil }
        if let expectedSize, result.size != expectedSize {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: tagFile)
            throw HubError.sizeMismatch(file: destination.path, expected: expectedSize, actual: result.size)
        }
        if let expectedHash, result.sha256 != expectedHash {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: tagFile)
            throw HubError.checksumMismatch(file: destination.path, expected: expectedHash, actual: result.sha256)
        }
        guard rename(partial.path, destination.path) == 0 else { throw HubError.writing(destination.path, errno: errno) }
        try? FileManager.default.removeItem(at: tagFile)
        return result
    }

    /// The first byte of a `Content-Range: bytes START-END/TOTAL` value.
    static func rangeStart(_ value: String) -> Int? {
        guard let spec = value.split(separator: " ").last, let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[spec.startIndex..<dash])
    }

    /// The TOTAL of a `Content-Range` value (`bytes */TOTAL` in a 416), nil when it is `*`.
    static func completeLength(_ value: String) -> Int? {
        value.split(separator: "/").last.flatMap { Int($0) }
    }
}
