import Foundation
import Testing

/// `chorus models` as a user runs it; nothing here reaches a network (offline mode, unknown names, paths).
@Suite struct ModelsCommandTests {
    @Test func anUnknownNameListsTheKnownOnes() async throws {
        let result = try await ChorusProcess.running(["models", "pull", "kokro"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("'kokro' does not name a model"))
        #expect(result.standardError.contains("silero-vad"))
    }

    @Test func offlineModeSaysSoAndInstallsNothing() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChorusProcess.running(["models", "pull", "silero-vad"], environment: [
            "CHORUS_MODELS": folder.appendingPathComponent("models").path, "CHORUS_OFFLINE": "1",
            "CHORUS_DOWNLOADS": folder.appendingPathComponent("downloads").path,
            "HF_HUB_CACHE": folder.appendingPathComponent("hf").path,
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("silero-vad is not installed and offline mode is on (CHORUS_OFFLINE=1)"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("models/silero-vad").path))
    }

    @Test func pathNamesTheFolderAndWhetherItIsInstalled() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChorusProcess.running(["models", "path", "chatterbox:q4f16"],
                                                     environment: ["CHORUS_MODELS": folder.path])
        #expect(result.status != 0)
        #expect(result.standardOutput == folder.appendingPathComponent("chatterbox-q4f16").path + "\n")
        #expect(result.standardError.contains("chorus models pull chatterbox:q4f16"))
    }

    @Test func verifyNamesADamagedFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("silero-vad")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 2_327_524).write(to: model.appendingPathComponent("silero_vad.onnx"))
        try Data("silero-vad-6.2.3".utf8).write(to: model.appendingPathComponent(".complete"))
        let result = try await ChorusProcess.running(["models", "verify", "silero-vad"], environment: ["CHORUS_MODELS": folder.path])
        #expect(result.status != 0)
        #expect(result.standardOutput.contains("silero_vad.onnx has SHA-256"))
        #expect(result.standardOutput.contains("1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"))
        #expect(result.standardOutput.contains("chorus models pull silero-vad"))
    }
}
