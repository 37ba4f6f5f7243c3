import ChorusFiles
import ChorusModels
import Foundation

/// The SHA-256 of each file whose source publishes none, recorded by its first verified download
/// in `<root>/.recorded-hashes/<id>.sha256` (sha256sum's format), so later downloads and `verify`
/// are checked against it. It outlives `chorus models rm`, as a pinned hash would.
struct RecordedHashes: Sendable {
    let file: URL

    init(store: ModelStore, id: String) {
        file = store.root.appendingPathComponent(".recorded-hashes", isDirectory: true).appendingPathComponent("\(id).sha256")
    }

    /// File name to hash.
    func load() -> [String: String] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [:] }
        var hashes: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2 else { continue }
            hashes[fields[1].trimmingCharacters(in: .whitespaces)] = String(fields[0])
        }
        return hashes
    }

    /// Adds `entries` (name, hash) to the record, keeping hashes recorded before.
    func add(_ entries: [(String, String)]) throws {
        guard !entries.isEmpty else { return }
        var hashes = load()
        for (name, hash) in entries where hashes[name] == nil { hashes[name] = hash }
        let text = hashes.keys.sorted().map { "\(hashes[$0]!)  \($0)\n" }.joined()
        try ModelPuller.makeFolder(file.deletingLastPathComponent())
        try ModelPuller.writing(file.path) { try StagedFile.write(to: file) { try Data(text.utf8).write(to: $0.temporary) } }
    }
}
