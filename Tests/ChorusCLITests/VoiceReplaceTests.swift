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
            let process = try Self.replace(with: newCodes, model: folder)
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

    /// The same with every kill landing mid-replace: the voices folder is watched and `chorus voice add --replace`
    /// killed the moment its staging folder appears, while it writes a voice large enough to take a while
    /// (2,000,000 codes). A staging folder left behind proves the kill came before the replace had finished; one
    /// still holding the new voice's codes means the swap never happened, so the old voice must be in place.
    @Test(.disabled("its 2,000,000-code voice is refused at upload since ae099d8 (issue 41 item 3: a NeuTTS voice must fit the context), so no kill lands mid-replace; it needs a large voice that is still valid"))
    func aReplaceKilledWhileItWritesLeavesTheOldVoice() async throws {
        let folder = try NeuTTSCommandTests.folder(encoder: false)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let old = Array(repeating: 7, count: 150), new = (0..<2_000_000).map { $0 % 65_536 }
        let newCodes = folder.appendingPathComponent("new.npy")
        try NeuTTSCommandTests.npy(new, to: newCodes)
        let voices = folder.appendingPathComponent("voices")
        let keep = voices.appendingPathComponent("keep")
        var midReplace = 0
        for attempt in 0..<4 {
            try NeuTTSVoice(codes: old, transcript: "The old voice.").write(id: "keep", to: voices, replacing: true)
            let oldSize = try Self.size(of: keep.appendingPathComponent(NeuTTSVoice.codesFile))
            let process = try Self.replace(with: newCodes, model: folder)
            let sawStaging = await Self.killWhenStaging(process, in: voices)
            process.waitUntilExit()

            let contents = NeuTTSVoice.contents(of: voices, language: "en-us")
            #expect(contents.voices.map(\.id) == ["keep"] && contents.unusable.isEmpty, "attempt \(attempt): \(contents.unusable)")
            let voice = try NeuTTSVoice(folder: keep)
            #expect(voice.codes == old || voice.codes == new, "attempt \(attempt): a voice of \(voice.codes.count) codes")
            let left = try FileManager.default.contentsOfDirectory(atPath: voices.path).filter { $0.hasSuffix(".partial") }
            if sawStaging, !left.isEmpty { midReplace += 1 }
            for name in left {
                let staged = voices.appendingPathComponent(name).appendingPathComponent(NeuTTSVoice.codesFile)
                if let size = try? Self.size(of: staged), size != oldSize {
                    #expect(voice.codes == old, "attempt \(attempt): the new voice was half written, and the old one is gone")
                }
                try FileManager.default.removeItem(at: voices.appendingPathComponent(name))
            }
        }
        print("voice add --replace killed mid-replace in \(midReplace) of 4 runs")
        #expect(midReplace > 0, "no kill landed while the replace was under way: the test proved nothing")
    }

    /// `chorus voice add --replace` of NeuTTS voice `keep` in `folder`'s voices with the codes in `codes`
    /// ("The new voice."), started and left running, its output thrown away.
    static func replace(with codes: URL, model folder: URL) throws -> Process {
        let process = Process()
        process.executableURL = ChorusProcess.binary
        process.arguments = ["voice", "add", "--engine", "neutts", "--codes", codes.path, "--text", "The new voice.",
                             "--id", "keep", "--model", folder.path, "--replace"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func size(of url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? -1
    }

    /// Kills `process` as soon as a staging folder (`.<id>.<uuid>.partial`) appears in `voices`; false when the
    /// process ended first. Watches on a thread of its own, so no shared concurrency thread spins.
    static func killWhenStaging(_ process: Process, in voices: URL) async -> Bool {
        await withCheckedContinuation { continuation in
            let pid = process.processIdentifier
            Thread {
                while process.isRunning {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: voices.path)) ?? []
                    if names.contains(where: { $0.hasPrefix(".keep.") && $0.hasSuffix(".partial") }) {
                        kill(pid, SIGKILL)
                        return continuation.resume(returning: true)
                    }
                }
                continuation.resume(returning: false)
            }.start()
        }
    }
}
