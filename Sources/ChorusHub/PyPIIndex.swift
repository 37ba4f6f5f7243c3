import ChorusModels
import Foundation

/// Finds a wheel's download address and SHA-256 through PyPI's JSON API
/// (`<endpoint>/pypi/<package>/<version>/json`, whose `urls` list each file of the release).
struct PyPIIndex: Sendable {
    let downloader: FileDownloader

    /// Where to download a wheel and what PyPI says about it.
    struct Listing: Sendable, Equatable {
        var url: String
        var sha256: String
        var size: Int?
    }

    /// The listing of `wheel` in its release: from `/pypi/<package>/<version>/json`, or, where an
    /// index serves only the project's document, from its `releases` (file addresses may be relative to it).
    func locate(_ wheel: PyPIWheel) async throws -> Listing {
        let project = "\(downloader.settings.pypiEndpoint)/pypi/\(wheel.package)"
        do {
            return try await listing(of: wheel, at: "\(project)/\(wheel.version)/json") { $0["urls"] }
        } catch HubError.notFound {
            return try await listing(of: wheel, at: "\(project)/json") { ($0["releases"] as? [String: Any])?[wheel.version] }
        }
    }

    private func listing(of wheel: PyPIWheel, at address: String, files: ([String: Any]) -> Any?) async throws -> Listing {
        let data = try await downloader.fetch(address)
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HubError.failed(what: "Reading \(address)", reason: "it is not PyPI's JSON API")
        }
        for file in files(document) as? [[String: Any]] ?? [] where file["filename"] as? String == wheel.filename {
            guard let url = file["url"] as? String, let digests = file["digests"] as? [String: Any],
                  let sha256 = digests["sha256"] as? String,
                  let absolute = URL(string: url, relativeTo: URL(string: address))?.absoluteURL.standardized else { break }
            return Listing(url: absolute.absoluteString, sha256: sha256.lowercased(), size: file["size"] as? Int)
        }
        throw HubError.wheelNotListed(package: wheel.package, version: wheel.version, filename: wheel.filename)
    }
}
