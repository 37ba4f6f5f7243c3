import ChorusSpeech
import Foundation
import Testing

/// Issue 41, item 5: a voice replaced or removed while a request reads it is the old voice, the new one, or
/// gone, never files of both and never a failure of the reader. The races are made to happen inside the read.
@Suite struct VoiceStoreRaceTests {
    /// A voice whose two files must agree: what a reader that mixed an old and a new voice would break.
    static func fill(_ text: String) -> (URL) throws -> Void {
        { folder in
            try Data(text.utf8).write(to: folder.appendingPathComponent("a.txt"))
            try Data(text.utf8).write(to: folder.appendingPathComponent("b.txt"))
        }
    }

    static func read(_ folder: URL) throws -> (String, String) {
        (try String(contentsOf: folder.appendingPathComponent("a.txt"), encoding: .utf8),
         try String(contentsOf: folder.appendingPathComponent("b.txt"), encoding: .utf8))
    }

    @Test func aReplaceBetweenTwoFilesIsReadAgainWhole() throws {
        let store = VoiceStoreTests.storeFolder()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let folder = try store.write(id: "mine", Self.fill("old"))
        var reads = 0
        let read = try VoiceStore.readSteady(folder) { () throws -> (String, String) in
            reads += 1
            let a = try String(contentsOf: folder.appendingPathComponent("a.txt"), encoding: .utf8)
            if reads == 1 { try store.write(id: "mine", replacing: true, Self.fill("new")) }
            return (a, try String(contentsOf: folder.appendingPathComponent("b.txt"), encoding: .utf8))
        }
        #expect(reads == 2)
        #expect(read.map { [$0.0, $0.1] } == ["new", "new"])
    }

    @Test func aRemoveDuringTheReadIsNoVoiceNotAFailure() throws {
        let store = VoiceStoreTests.storeFolder()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let folder = try store.write(id: "mine", Self.fill("old"))
        let read = try VoiceStore.readSteady(folder) { () throws -> (String, String) in
            try store.remove(id: "mine")
            return try Self.read(folder)
        }
        #expect(read == nil)
        // A listing made meanwhile does not list it as a damaged voice either.
        let listed = store.contents { _, url in try Self.read(url) }
        #expect(listed.voices.isEmpty && listed.unusable.isEmpty)
    }

    /// The second of two removals finds no voice: unknown, as a request for it would (main: "voice not written"
    /// when the rename lost, or unknown only when it lost earlier).
    @Test func theSecondRemovalIsAnUnknownVoice() throws {
        let store = VoiceStoreTests.storeFolder()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        try store.write(id: "mine", Self.fill("old"))
        try store.remove(id: "mine")
        #expect(throws: SpeechError.unknownVoice("mine", engine: "test", available: [])) { try store.remove(id: "mine") }
    }
}

extension VoiceStoreTests {
    static func storeFolder() -> VoiceStore {
        VoiceStore(folder: FileManager.default.temporaryDirectory.appendingPathComponent("chorus-voices-\(UUID().uuidString)"),
                   engine: "test")
    }
}
