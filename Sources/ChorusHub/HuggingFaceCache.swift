import Foundation

/// The cache `huggingface_hub` fills (`models--<owner>--<name>/snapshots/<commit>/<path>`, with
/// `refs/<branch>` holding a branch's commit), read so a model already downloaded there is used
/// instead of a second download.
struct HuggingFaceCache: Sendable {
    let root: URL

    /// The cached copy of `path` in `repo` at `revision`, if there is one.
    func file(repo: String, revision: String, path: String) -> URL? {
        let repository = root.appendingPathComponent("models--" + repo.replacingOccurrences(of: "/", with: "--"),
                                                     isDirectory: true)
        var commit = revision
        if !(revision.count == 40 && revision.allSatisfy(\.isHexDigit)) {
            let ref = repository.appendingPathComponent("refs").appendingPathComponent(revision)
            guard let text = try? String(contentsOf: ref, encoding: .utf8) else { return nil }
            commit = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let file = repository.appendingPathComponent("snapshots").appendingPathComponent(commit).appendingPathComponent(path)
        // Snapshot entries are links into blobs/; a dangling one (an interrupted download) does not count.
        let resolved = file.resolvingSymlinksInPath()
        return FileManager.default.fileExists(atPath: resolved.path) ? resolved : nil
    }
}
