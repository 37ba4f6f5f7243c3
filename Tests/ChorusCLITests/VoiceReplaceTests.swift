import ChorusNeuTTS
import ChorusSpeech
import Foundation
import Testing

/// `chorus voice add --replace` killed at any moment leaves a voice that can be used: the old one until the new
/// one is complete, then the new one; never a half-written folder or none.
@Suite struct VoiceReplaceTests {
    @Test func aReplaceKilledAtAnyMomentLeavesAUsableVoice() async throws {
        let folder = try NeuTTSCommandTests.folder(encoder: false)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let (old, new) = (Array(repeating: 7, count: 150), Array(repeating: 9, count: 300))
        let oldCodes = folder.appendingPathComponent("old.npy"), newCodes = folder.appendingPathComponent("new.npy")
        try NeuTTSCommandTests.npy(old, to: oldCodes)
        try NeuTTSCommandTests.npy(new, to: newCodes)
        let added = try await ChorusProcess.running(["voice", "add", "--engine", "neutts", "--codes", oldCodes.path,
                                                     "--text", "The old voice.", "--id", "keep", "--model", folder.path])
        #expect(added.status == 0, "\(added.standardError)")
        let voices = folder.appendingPathComponent("voices")
        var killed = 0
        // Kills spread over the command's life: from before it reads anything to after it is done.
        for delay in stride(from: 0, through: 1_500, by: 100) {
            let process = Process()
            process.executableURL = ChorusProcess.binary
            process.arguments = ["voice", "add", "--engine", "neutts", "--codes", newCodes.path, "--text", "The new voice.",
                                 "--id", "keep", "--model", folder.path, "--replace"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(delay))
            if process.isRunning { kill(process.processIdentifier, SIGKILL); killed += 1 }
            process.waitUntilExit()
            let contents = NeuTTSVoice.contents(of: voices, language: "en-us")
            #expect(contents.voices.map(\.id) == ["keep"], "after \(delay) ms: \(contents.unusable)")
            let voice = try NeuTTSVoice(folder: voices.appendingPathComponent("keep"))
            #expect(voice.codes == old || voice.codes == new)
            #expect(voice.transcript == (voice.codes == old ? "The old voice." : "The new voice."))
        }
        #expect(killed > 0, "no run was killed before it ended: the test proved nothing")
    }
}
