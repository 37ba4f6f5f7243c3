import ChorusModels
import Foundation
import Testing

/// A model or voice folder filled beside its destination and put in place complete.
@Suite struct StagedFolderTests {
    struct Failure: Error {}

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
