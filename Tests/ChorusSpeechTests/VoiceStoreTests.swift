import ChorusSpeech
import Foundation
import Testing

/// The one voice store every engine keeps its voices in, and the one id rule.
@Suite struct VoiceStoreTests {
    static func store() throws -> VoiceStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-voices-\(UUID().uuidString)")
        return VoiceStore(folder: folder, engine: "test")
    }

    static func fill(_ text: String) -> (URL) throws -> Void {
        { try Data(text.utf8).write(to: $0.appendingPathComponent("voice.txt")) }
    }

    static func read(_ store: VoiceStore) -> VoiceStore.Contents<String> {
        store.contents(requiring: ["voice.txt"]) { _, url in
            try String(contentsOf: url.appendingPathComponent("voice.txt"), encoding: .utf8)
        }
    }

    @Test func idsFollowOneRule() throws {
        for good in ["mine", "Dave_2", "café", "声音", "a-b"] { #expect(try VoiceID.checked(good) == good.precomposedStringWithCanonicalMapping) }
        #expect(try VoiceID.checked("cafe\u{301}") == "café")
        for bad in ["", "_x", "-x", "a b", "new\nline", "tab\t", "a\u{200B}b", "x\u{202E}y", "a/b", "..", "*", "~", "back\\slash",
                    String(repeating: "x", count: 129)] {
            #expect(throws: SpeechError.self, "\(bad.debugDescription)") { try VoiceID.checked(bad) }
        }
        #expect(VoiceID.collisionKey("ｍｉｎｅ") == VoiceID.collisionKey("mine"))
    }

    @Test func aReplacementThatFailsLeavesTheOldVoice() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        try store.write(id: "mine", Self.fill("old"))
        #expect(throws: SpeechError.voiceExists("mine", engine: "test")) { try store.write(id: "mine", Self.fill("new")) }
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try store.write(id: "mine", replacing: true) { staging in
                try Data("half".utf8).write(to: staging.appendingPathComponent("voice.txt"))
                throw Broken()
            }
        }
        #expect(Self.read(store).voices == ["old"])
        try store.write(id: "mine", replacing: true, Self.fill("new"))
        #expect(Self.read(store).voices == ["new"])
        // Nothing staged is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.path) == ["mine"])
    }

    @Test func ofFourWritersOfOneNewIdExactlyOneSucceeds() async throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    (try? store.write(id: "same") { staging in
                        try Data("\(writer)".utf8).write(to: staging.appendingPathComponent("voice.txt"))
                        Thread.sleep(forTimeInterval: 0.05)  // all four check the id before any puts it in place
                    }) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(Self.read(store).voices.count == 1)
    }

    @Test func damagedAndCollidingFoldersAreListedAsUnusableWithWhy() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        try store.write(id: "whole", Self.fill("ok"))
        try FileManager.default.createDirectory(at: store.folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: store.folder.appendingPathComponent("ｗｈｏｌｅ"), withIntermediateDirectories: true)
        let contents = Self.read(store)
        #expect(contents.voices == ["ok"])
        #expect(contents.unusable.map(\.id).sorted() == ["empty", "ｗｈｏｌｅ"])
        #expect(contents.unusable.first { $0.id == "empty" }?.problem.contains("voice.txt missing") == true)
        #expect(throws: SpeechError.self) { try store.checkedNewID("ｗｈｏｌｅ", replacing: false) }
    }

    @Test func removingTakesTheVoiceAwayWhole() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        try store.write(id: "gone", Self.fill("x"))
        try store.remove(id: "gone")
        #expect(Self.read(store).voices.isEmpty)
        #expect(throws: SpeechError.self) { try store.remove(id: "gone") }
        #expect(throws: SpeechError.self) { try store.remove(id: "../outside") }
    }

    @Test func clipsNoEngineCanUseAreRefused() throws {
        let rate = 16_000
        let speech = (0..<rate * 3).map { Float(sin(Double($0) * 0.05) * 0.3) }
        try VoiceClip(samples: speech, sampleRate: rate).check(accepting: 1...10, engine: "test")
        for (samples, what) in [([Float](repeating: 0, count: rate * 3), "silent"), ([Float.nan] + speech, "not a number"),
                                (Array(speech.prefix(rate / 2)), "too short"), (speech + speech + speech + speech, "too long")] {
            #expect(throws: SpeechError.self, "\(what)") { try VoiceClip(samples: samples, sampleRate: rate).check(accepting: 1...10, engine: "test") }
        }
    }
}
