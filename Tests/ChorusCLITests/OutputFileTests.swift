import ChorusModels
import Foundation
import Testing

/// Issue 17's file classes through the command itself: devices are written to and never replaced, an
/// output that is an input is refused, a read-only file is kept unless `--force`, and no temporary
/// file outlives the command, whether it fails, is refused or is stopped by a signal.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled,
                "chorus binary or Piper model missing; run scripts/setup.sh"))
struct OutputFileTests {
    @Test(arguments: [false, true])
    func aDeviceOutputIsWrittenToAndStaysADevice(streaming: Bool) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A null device of the test's own (root may make one), else the system's, which is only read.
        var device = URL(fileURLWithPath: "/dev/null")
        let own = folder.appendingPathComponent("null")
        var null = stat()
        if stat(device.path, &null) == 0, mknod(own.path, S_IFCHR | 0o666, null.st_rdev) == 0 { device = own }
        let result = try await ChorusProcess.running(
            ["speak", "--engine", "piper", "-o", device.path] + (streaming ? ["--stream"] : []) + ["Hello there."])
        #expect(result.status == 0, "\(result.standardError)")
        var status = stat()
        #expect(stat(device.path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasSuffix(".partial") })
    }

    @Test func anOutputThatIsTheTextFileIsRefusedAndTheTextKept() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("t.txt")
        try Data("Hello there.".utf8).write(to: text)
        for flags in [[], ["--stream"]] {
            let result = try await ChorusProcess.running(["speak", "--engine", "piper", "--file", text.path, "-o", text.path] + flags)
            #expect(result.status != 0)
            #expect(result.standardError.contains("it is the input \(text.path), which writing would destroy"), "\(result.standardError)")
        }
        #expect(try String(contentsOf: text, encoding: .utf8) == "Hello there.")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["t.txt"])
    }

    @Test func featuresRefusesToWriteOverItsInput() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("in.wav")
        let made = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", wav.path, "Hi."])
        #expect(made.status == 0, "\(made.standardError)")
        let before = try Data(contentsOf: wav)
        let result = try await ChorusProcess.running(["features", "--kind", "kaldi", wav.path, "-o", wav.path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("it is the input"), "\(result.standardError)")
        #expect(try Data(contentsOf: wav) == before)
    }

    @Test func aReadOnlyOutputIsKeptUnlessForced() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: output)
        #expect(chmod(output.path, 0o444) == 0)
        let refused = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", output.path, "Hi."])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("the file is read-only; make it writable or pass --force"), "\(refused.standardError)")
        #expect(try Data(contentsOf: output) == Data("old".utf8))
        let forced = try await ChorusProcess.running(["speak", "--engine", "piper", "--force", "-o", output.path, "Hi."])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try Data(contentsOf: output).prefix(4) == Data("RIFF".utf8))
        var status = stat()
        #expect(stat(output.path, &status) == 0 && status.st_mode & 0o777 == 0o444)
    }

    @Test func refusedEmptyStreamingInputLeavesNoFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChorusProcess.running(
            ["speak", "--engine", "piper", "--stream", "-o", folder.appendingPathComponent("out.wav").path], input: Data("  \n".utf8))
        #expect(result.status != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// A signal in the middle of writing ends the command as the signal would, keeps the file that
    /// was there and leaves no temporary file beside it.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalMidWriteLeavesNoTemporaryFile(signal number: Int32) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("story.wav")
        try Data("previous".utf8).write(to: output)
        let story = folder.appendingPathComponent("story.txt")
        try Data(String(repeating: "This sentence keeps the voice busy for a while. ", count: 400).utf8).write(to: story)
        let process = Process()
        process.executableURL = ChorusProcess.binary
        process.arguments = ["speak", "--engine", "piper", "--file", story.path, "-o", output.path]
        process.standardError = FileHandle.nullDevice
        let ended = AsyncStream<Process.TerminationReason> { continuation in
            process.terminationHandler = { continuation.yield($0.terminationReason); continuation.finish() }
        }
        try process.run()
        // Watch for the temporary file on a thread of its own and signal from there: a task on the shared
        // pool may not run again for seconds while the suite's other tests hold it, by when the command is done.
        let sawPartial = await withCheckedContinuation { continuation in
            Thread {
                var seen = false
                var looks = 0
                // Up to a minute; the loop ends as soon as the file shows or the command has ended.
                while !seen, process.isRunning, looks < 6_000 {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                    seen = names.contains { $0.hasSuffix(".partial") }
                    if !seen { usleep(10_000) }
                    looks += 1
                }
                if seen { kill(process.processIdentifier, number) }
                continuation.resume(returning: seen)
            }.start()
        }
        #expect(sawPartial, "the command ended before writing began")
        var reason: Process.TerminationReason?
        for await value in ended { reason = value }
        #expect(reason == .uncaughtSignal)
        #expect(process.terminationStatus == number)
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["story.txt", "story.wav"])
    }
}
