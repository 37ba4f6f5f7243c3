import ChorusFiles
import ChorusModels
import Foundation

/// Models as the runtime optimised them, kept on disk so that the next process loads the optimised
/// graph instead of optimising the model again (the runtime's `optimized_model_filepath`, then the
/// saved model loaded with optimisation off, as ONNX Runtime's documentation describes for
/// "offline" optimisation).
///
/// An entry is named after the model and a key of what the optimised graph depends on: the model
/// file (path, size, modification time), the runtime's version, the optimisation level, the
/// execution providers asked for, and the CPU's features (the `all` level lays convolutions out for
/// the CPU's vector width). Any change gives a new key, and writing a new entry removes the model's
/// older ones. An entry is written under a temporary name and renamed into place once complete
/// (`StagedFile`), so a killed process never leaves half a file under an entry's name; an entry the
/// runtime cannot load is removed and made again. Where the cache cannot be written (a read-only
/// store, a full disk), the model loads as it would without one.
///
/// Beside each entry, `<entry>.source` names the model it was made from, so the folder cannot grow
/// without bound: writing an entry also removes every entry whose model file is gone (a voice loaded
/// once from a temporary folder, a deleted or moved model), and every entry with no such note (written
/// before entries named their model, and not loaded since: loading an entry writes its note). Without
/// this, a benchmark loading a temporary copy of a voice left a 63 MB entry per run: ten of them
/// (631 MB) were found in one store.
public struct OptimizedModelCache: Sendable, Equatable {
    /// The folder holding the entries.
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// The environment variable that turns the cache off: `0`, `off`, `no` or `false`.
    public static let environmentVariable = "CHORUS_OPTIMIZED_MODELS"

    /// The cache of the model store `environment` names (`<models>/.optimized`), or nil when
    /// `CHORUS_OPTIMIZED_MODELS` turns it off.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> OptimizedModelCache? {
        if let value = environment[environmentVariable]?.lowercased(), ["0", "off", "no", "false"].contains(value) {
            return nil
        }
        return OptimizedModelCache(folder: ModelStore(environment: environment).root.appendingPathComponent(".optimized"))
    }

    /// A session for the model at `modelPath`: loaded from its optimised graph when the cache holds one
    /// for these options, else created from the model, its optimised graph written to the cache. The
    /// session names `modelPath` in its errors either way.
    public func session(modelPath: String, options: SessionOptions = SessionOptions(),
                        runtime: OnnxRuntime? = nil) throws -> InferenceSession {
        let runtime = try runtime ?? OnnxRuntime.shared()
        guard options.optimizationLevel != .disabled, options.optimizedModelPath == nil,
              let entry = try? entry(forModel: modelPath, options: options, runtime: runtime)
        else { return try InferenceSession(modelPath: modelPath, options: options, runtime: runtime) }

        if FileManager.default.fileExists(atPath: entry.path) {
            var saved = options
            saved.optimizationLevel = .disabled
            saved.graphEdit = nil
            if let session = try? InferenceSession(file: entry.path, modelPath: modelPath, options: saved, runtime: runtime) {
                if !FileManager.default.fileExists(atPath: Self.source(of: entry).path) {
                    try? Self.writeSource(of: entry, modelPath: modelPath)
                }
                return session
            }
            // Not loadable (damaged, or written by a runtime that reads it differently): made again below.
            Self.remove(entry)
        }

        // The note is written first, so an entry is never in place without one (which would get it removed).
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
              (try? Self.writeSource(of: entry, modelPath: modelPath)) != nil,
              let staged = try? StagedFile(destination: entry)
        else { return try InferenceSession(modelPath: modelPath, options: options, runtime: runtime) }
        var saving = options
        saving.optimizedModelPath = staged.temporary.path
        let session: InferenceSession
        do {
            session = try InferenceSession(file: modelPath, modelPath: modelPath, options: saving, runtime: runtime)
        } catch {
            // Whether the model or the writing failed, the model is loaded as without a cache: a model
            // error is reported as it would be, and a failed write costs nothing more next time than now.
            staged.discard()
            try? FileManager.default.removeItem(at: Self.source(of: entry))
            return try InferenceSession(modelPath: modelPath, options: options, runtime: runtime)
        }
        do {
            try staged.commit()
            removeStaleEntries(keeping: entry, modelPath: modelPath)
        } catch {
            staged.discard()
            try? FileManager.default.removeItem(at: Self.source(of: entry))
        }
        return session
    }

    /// Where the optimised graph of `modelPath` under `options` is kept:
    /// `<model file name>-<hash of its path>-<key>.onnx`. Throws when the model cannot be looked at.
    public func entry(forModel modelPath: String, options: SessionOptions, runtime: OnnxRuntime) throws -> URL {
        try entry(forModel: modelPath, options: options, runtimeVersion: runtime.version)
    }

    func entry(forModel modelPath: String, options: SessionOptions, runtimeVersion: String) throws -> URL {
        let model = URL(fileURLWithPath: modelPath).standardizedFileURL
        let attributes = try FileManager.default.attributesOfItem(atPath: model.path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let key = ([
            "model \(model.path) \(size) \(modified)",
            "runtime \(runtimeVersion)",
            "level \(options.optimizationLevel)",
            "providers \(options.preferredProviders.map(\.rawValue).joined(separator: ","))",
            "cpu \(Self.cpuFeatures)",
        ] + (options.graphEdit.map { ["edit \($0.value) capped by \($0.capInput)"] } ?? [])).joined(separator: "\n")
        return folder.appendingPathComponent("\(Self.prefix(of: model))\(Self.hash(key).prefix(16)).onnx")
    }

    /// The start every entry of `model` shares: its file name and a hash of its path.
    private static func prefix(of model: URL) -> String {
        "\(model.deletingPathExtension().lastPathComponent)-\(hash(model.path).prefix(8))-"
    }

    /// The note beside `entry` naming its model.
    static func source(of entry: URL) -> URL {
        entry.appendingPathExtension("source")
    }

    private static func writeSource(of entry: URL, modelPath: String) throws {
        let model = URL(fileURLWithPath: modelPath).standardizedFileURL.path
        try Data((model + "\n").utf8).write(to: source(of: entry), options: .atomic)
    }

    /// Removes an entry and its note.
    private static func remove(_ entry: URL) {
        try? FileManager.default.removeItem(at: entry)
        try? FileManager.default.removeItem(at: source(of: entry))
    }

    /// Removes, besides `current` (just written for `modelPath`): the model's other entries (an older
    /// model file or runtime), entries whose model file is gone, and entries without a note. A note
    /// left alone (its entry removed by hand, or its process killed between the two) is removed once a
    /// day old, so one just written for an entry about to be put in place stays.
    private func removeStaleEntries(keeping current: URL, modelPath: String) {
        let prefix = Self.prefix(of: URL(fileURLWithPath: modelPath).standardizedFileURL)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let present = Set(names)
        for name in names where name != current.lastPathComponent {
            let file = folder.appendingPathComponent(name)
            if name.hasSuffix(".onnx") {
                let note = Self.source(of: file)
                let model = present.contains(note.lastPathComponent)
                    ? (try? String(contentsOf: note, encoding: .utf8))?.trimmingCharacters(in: .newlines) : nil
                if name.hasPrefix(prefix) || model.map({ !FileManager.default.fileExists(atPath: $0) }) ?? true {
                    Self.remove(file)
                }
            } else if name.hasSuffix(".onnx.source"), !present.contains(String(name.dropLast(".source".count))),
                      let written = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
                      written < Date(timeIntervalSinceNow: -86_400) {
                try? FileManager.default.removeItem(at: file)
            }
        }
    }

    private static func hash(_ text: String) -> String {
        var hasher = ChorusFiles.SHA256()
        hasher.update(Data(text.utf8))
        return hasher.finish()
    }

    /// The CPU's model and feature flags where the system lists them (`/proc/cpuinfo` on Linux); empty
    /// elsewhere.
    static let cpuFeatures: String = {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "" }
        let lines = info.split(separator: "\n")
        let wanted = ["model name", "flags"]
        return wanted.compactMap { key in lines.first { $0.hasPrefix(key) }.map(String.init) }.joined(separator: "\n")
    }()
}
