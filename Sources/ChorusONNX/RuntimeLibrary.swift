import CChorusONNX
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and opens the ONNX Runtime shared library at run time, so no binary links against one version.
enum RuntimeLibrary {
    /// The environment variable that names the library file.
    static let environmentVariable = "CHORUS_ORT_LIBRARY"

    #if canImport(Darwin)
    static let systemNames = ["libonnxruntime.dylib"]
    #else
    static let systemNames = ["libonnxruntime.so", "libonnxruntime.so.1"]
    #endif

    /// Where `scripts/setup.sh` installs the runtime: `.deps/onnxruntime/lib` in the checkout this file was built from.
    static var projectInstallDirectory: String {
        // Sources/ChorusONNX/RuntimeLibrary.swift -> checkout root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".deps/onnxruntime/lib").path
    }

    /// The places to try, in order: explicit path, environment, project install, system loader.
    static func candidates(explicitPath: String?, environment: [String: String]) -> [(source: String, path: String)] {
        var places: [(String, String)] = []
        if let explicitPath { places.append(("explicit path", explicitPath)) }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            places.append((environmentVariable, fromEnvironment))
        }
        for name in systemNames {
            places.append(("project install", projectInstallDirectory + "/" + name))
        }
        for name in systemNames {
            places.append(("system loader", name))
        }
        return places
    }

    /// Opens the first candidate that loads and exports `OrtGetApiBase`.
    static func open(explicitPath: String?) throws -> (path: String, base: UnsafePointer<OrtApiBase>) {
        var tried: [OnnxRuntimeError.Attempt] = []
        for (source, path) in candidates(explicitPath: explicitPath, environment: ProcessInfo.processInfo.environment) {
            // A bare name goes to the system loader's search; a path must exist first, for a clearer reason.
            if path.contains("/"), !FileManager.default.fileExists(atPath: path) {
                tried.append(.init(source: source, path: path, reason: "no such file"))
                continue
            }
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
                tried.append(.init(source: source, path: path, reason: reason))
                continue
            }
            guard let symbol = dlsym(handle, "OrtGetApiBase") else {
                tried.append(.init(source: source, path: path, reason: "does not export OrtGetApiBase"))
                dlclose(handle)
                continue
            }
            let getBase = unsafeBitCast(symbol, to: OrtGetApiBaseFunction.self)
            guard let base = getBase() else {
                tried.append(.init(source: source, path: path, reason: "OrtGetApiBase returned nothing"))
                dlclose(handle)
                continue
            }
            // The handle stays open for the life of the process: sessions point into it.
            return (path, base)
        }
        throw OnnxRuntimeError.libraryNotFound(tried: tried)
    }
}
