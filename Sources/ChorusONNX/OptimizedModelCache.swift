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
            if let session = try? InferenceSession(file: entry.path, modelPath: modelPath, options: saved, runtime: runtime) {
                return session
            }
            // Not loadable (damaged, or written by a runtime that reads it differently): made again below.
            try? FileManager.default.removeItem(at: entry)
        }

        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
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
            return try InferenceSession(modelPath: modelPath, options: options, runtime: runtime)
        }
        do {
            try staged.commit()
            removeEntries(ofModel: modelPath, except: entry)
        } catch {
            staged.discard()
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
        let key = [
            "model \(model.path) \(size) \(modified)",
            "runtime \(runtimeVersion)",
            "level \(options.optimizationLevel)",
            "providers \(options.preferredProviders.map(\.rawValue).joined(separator: ","))",
            "cpu \(Self.cpuFeatures)",
        ].joined(separator: "\n")
        return folder.appendingPathComponent("\(Self.prefix(of: model))\(Self.hash(key).prefix(16)).onnx")
    }

    /// The start every entry of `model` shares: its file name and a hash of its path.
    private static func prefix(of model: URL) -> String {
        "\(model.deletingPathExtension().lastPathComponent)-\(hash(model.path).prefix(8))-"
    }

    /// Removes the entries of `modelPath` other than `current`: those of an older model file or runtime.
    private func removeEntries(ofModel modelPath: String, except current: URL) {
        let prefix = Self.prefix(of: URL(fileURLWithPath: modelPath).standardizedFileURL)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".onnx") && name != current.lastPathComponent {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private static func hash(_ text: String) -> String {
        var hasher = ChorusModels.SHA256()
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
