import Foundation
import Testing

/// Chorus processes locally and leaves nothing behind but what it was asked to write: a run with a fresh home
/// (and fresh XDG and temporary folders) creates no file outside the output and model folders. This catches
/// ONNX Runtime's telemetry queue (~/.cache/Microsoft) and audio-server clients started for file output.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled,
                "chorus binary or Piper model missing; run scripts/setup.sh"))
struct PrivacyTests {
    @Test func aRunWithAFreshHomeCreatesNothingOutsideTheOutputAndModelFolders() async throws {
        let models = ProcessInfo.processInfo.environment["CHORUS_MODELS"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/chorus/models").path
        let watched = try temporaryFolder()
        let output = try temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: watched)
            try? FileManager.default.removeItem(at: output)
        }
        var environment = ["CHORUS_MODELS": models]
        for name in ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "TMPDIR"] {
            let folder = watched.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            environment[name] = folder.path
        }
        let runs = [
            ["speak", "--engine", "piper", "Nothing but this file.", "-o", output.appendingPathComponent("a.wav").path],
            ["speak", "--engine", "piper", "--stream", "Nor this one.", "-o", output.appendingPathComponent("b.wav").path],
            ["vad", output.appendingPathComponent("a.wav").path],
        ]
        for arguments in runs {
            let result = try await ChorusProcess.running(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
        let created = FileManager.default.enumerator(atPath: watched.path)?.compactMap { $0 as? String }
            .filter { !environment.values.contains(watched.appendingPathComponent($0).path) } ?? []
        #expect(created.isEmpty, "created outside the output folder: \(created)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted() == ["a.wav", "b.wav"])
    }
}
