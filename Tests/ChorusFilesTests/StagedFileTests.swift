import ChorusFiles
import Foundation
import Testing

@Suite struct StagedFileTests {
    struct Failure: Error {}

    @Test func aWrittenFileAppearsWholeInTheSameFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        let temporary = try StagedFile.write(to: target) { staged in
            let temporary = staged.temporary
            try Data("new".utf8).write(to: temporary)
            #expect(!FileManager.default.fileExists(atPath: target.path))
            return temporary
        }
        #expect(temporary.deletingLastPathComponent().path == folder.path)
        #expect(temporary.lastPathComponent.hasPrefix(".out.wav."))
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try contents(of: folder) == ["out.wav"])
    }

    @Test func anExistingFileIsReplaced() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: target)
        try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0.temporary) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try contents(of: folder) == ["out.wav"])
    }

    @Test func aFailureLeavesNoPartialFileAndKeepsTheOldOne() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: target)
        #expect(throws: Failure.self) {
            try StagedFile.write(to: target) { staged in
                let temporary = staged.temporary
                try Data("half".utf8).write(to: temporary)
                throw Failure()
            }
        }
        await #expect(throws: Failure.self) {
            try await StagedFile.write(to: target) { staged in
                let temporary = staged.temporary
                try Data("half".utf8).write(to: temporary)
                await Task.yield()
                throw Failure()
            }
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "old")
        #expect(try contents(of: folder) == ["out.wav"])
    }

    @Test func aFailedRenameIsAPOSIXErrorAndLeavesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A non-empty folder appears where the file should go while it is written: rename(2) refuses to replace it.
        let target = folder.appendingPathComponent("out.wav")
        #expect(throws: POSIXError.self) {
            try StagedFile.write(to: target) { staged in
                try Data("new".utf8).write(to: staged.temporary)
                try FileManager.default.createDirectory(at: target.appendingPathComponent("inside"), withIntermediateDirectories: true)
            }
        }
        #expect(try contents(of: folder) == ["out.wav"])
    }

    // MARK: What is at the destination (issue 17: devices, inputs, mode, owner, links, leftovers)

    @Test func aDeviceIsWrittenToAndNeverReplaced() throws {
        let null = URL(fileURLWithPath: "/dev/null")
        let staged = try StagedFile.write(to: null) { staged in
            let handle = try staged.create(contents: Data("sound".utf8))
            try handle.close()
            return staged
        }
        #expect(staged.target == .device && staged.temporary == null)
        var status = stat()
        #expect(stat(null.path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        // Discarding a device write removes nothing.
        try StagedFile(destination: null).discard()
        #expect(FileManager.default.fileExists(atPath: null.path))
    }

    @Test func anOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("t.txt")
        try Data("keep me".utf8).write(to: text)
        // The same file under another name (a hard link, or a path through "..") is the same input.
        let link = folder.appendingPathComponent("link.txt")
        #expect(Foundation.link(text.path, link.path) == 0)
        for output in [text, link, folder.appendingPathComponent("../\(folder.lastPathComponent)/t.txt")] {
            #expect(throws: OutputError.isInput(path: output.path, input: text.path)) {
                try StagedFile.write(to: output, policy: .init(inputs: [text])) { _ in Issue.record("wrote over the input") }
            }
        }
        #expect(try String(contentsOf: text, encoding: .utf8) == "keep me")
        #expect(try contents(of: folder) == ["link.txt", "t.txt"])
        #expect("\(OutputError.isInput(path: "t.txt", input: "t.txt"))"
            == "Cannot write t.txt: it is the input t.txt, which writing would destroy; choose another output file.")
    }

    @Test func aReadOnlyFileIsKeptUnlessReplacingItIsAsked() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: target)
        #expect(chmod(target.path, 0o444) == 0)
        #expect(throws: OutputError.readOnly(path: target.path)) {
            try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0.temporary) }
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "old")
        try StagedFile.write(to: target, policy: .init(replacesReadOnly: true)) { try Data("new".utf8).write(to: $0.temporary) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try mode(of: target) == 0o444)
    }

    @Test func aReplacedFileKeepsItsModeAndOwner() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: target)
        #expect(chmod(target.path, 0o640) == 0)
        // Another owner and group, which only root may give; elsewhere the owner stays the caller's.
        let isRoot = getuid() == 0
        if isRoot { #expect(chown(target.path, 4_242, 4_343) == 0) }
        try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0.temporary) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try mode(of: target) == 0o640)
        var status = stat()
        #expect(stat(target.path, &status) == 0)
        if isRoot { #expect(status.st_uid == 4_242 && status.st_gid == 4_343) }
    }

    @Test func aFileWithHardLinksIsRewrittenInPlaceSoEveryNameSeesTheNewContent() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        let other = folder.appendingPathComponent("also.wav")
        try Data("old and longer".utf8).write(to: target)
        #expect(link(target.path, other.path) == 0)
        try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0.temporary) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try String(contentsOf: other, encoding: .utf8) == "new")
        #expect(try contents(of: folder) == ["also.wav", "out.wav"])
    }

    @Test func aFolderIsRefusedWithASentence() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: OutputError.isFolder(path: folder.path)) { try StagedFile(destination: folder) }
        #expect("\(OutputError.isFolder(path: "/tmp"))" == "Cannot write /tmp: it is a folder; name a file inside it.")
    }

    @Test func leftoversOfADeadProcessAreRemovedAndALiveOnesAreKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A process that has ended: its id is free (until reused, when its file is merely kept).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = ".out.wav.\(UUID().uuidString).\(ended.processIdentifier).partial"
        let alive = ".out.wav.\(UUID().uuidString).\(getpid()).partial"
        let unrelated = ".out.wav.notes.partial"
        for name in [dead, alive, unrelated] { try Data().write(to: folder.appendingPathComponent(name)) }
        try StagedFile.write(to: folder.appendingPathComponent("out.wav")) { try Data("new".utf8).write(to: $0.temporary) }
        #expect(try contents(of: folder) == [alive, unrelated, "out.wav"].sorted())
    }

    private func mode(of url: URL) throws -> mode_t {
        var status = stat()
        #expect(stat(url.path, &status) == 0)
        return status.st_mode & 0o7777
    }
}
