import ChorusModels
import Foundation
import Testing

@Suite struct StagedWriteTests {
    struct Failure: Error {}

    @Test func aWrittenFileAppearsWholeInTheSameFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        let temporary = try StagedFile.write(to: target) { temporary in
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
        try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try contents(of: folder) == ["out.wav"])
    }

    @Test func aFailureLeavesNoPartialFileAndKeepsTheOldOne() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.wav")
        try Data("old".utf8).write(to: target)
        #expect(throws: Failure.self) {
            try StagedFile.write(to: target) { temporary in
                try Data("half".utf8).write(to: temporary)
                throw Failure()
            }
        }
        await #expect(throws: Failure.self) {
            try await StagedFile.write(to: target) { temporary in
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
        // A non-empty folder where the file should go: rename(2) refuses to replace it.
        let target = folder.appendingPathComponent("out.wav")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("inside"), withIntermediateDirectories: true)
        #expect(throws: POSIXError.self) {
            try StagedFile.write(to: target) { try Data("new".utf8).write(to: $0) }
        }
        #expect(try contents(of: folder) == ["out.wav"])
    }

    @Test func aStagedFolderIsMarkedCompleteAndReplacesTheOldOne() throws {
        let parent = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let target = parent.appendingPathComponent("voices/mine")
        try StagedFolder.make(at: target, stamp: "v1") { folder in
            try Data("1".utf8).write(to: folder.appendingPathComponent("a.bin"))
        }
        #expect(try contents(of: target) == [".complete", "a.bin"])
        #expect(try String(contentsOf: target.appendingPathComponent(".complete"), encoding: .utf8) == "v1")
        try StagedFolder.make(at: target) { folder in
            try Data("2".utf8).write(to: folder.appendingPathComponent("b.bin"))
        }
        #expect(try contents(of: target) == [".complete", "b.bin"])
        #expect(try contents(of: target.deletingLastPathComponent()) == ["mine"])
    }

    @Test func aFailedFolderLeavesNothingAndKeepsTheOldOne() throws {
        let parent = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let target = parent.appendingPathComponent("mine")
        try StagedFolder.make(at: target) { try Data("1".utf8).write(to: $0.appendingPathComponent("a.bin")) }
        #expect(throws: Failure.self) {
            try StagedFolder.make(at: target) { folder in
                try Data("2".utf8).write(to: folder.appendingPathComponent("b.bin"))
                throw Failure()
            }
        }
        #expect(try contents(of: parent) == ["mine"])
        #expect(try contents(of: target) == [".complete", "a.bin"])
    }
}
