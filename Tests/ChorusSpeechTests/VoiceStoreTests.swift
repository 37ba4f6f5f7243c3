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

    /// Counts what a cache read and was told, from any thread.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var readIDs: [String] = [], changedIDs: [String] = []
        func read(_ id: String) { lock.withLock { readIDs.append(id) } }
        func changed(_ id: String) { lock.withLock { changedIDs.append(id) } }
        var reads: [String] { lock.withLock { readIDs } }
        var changes: [String] { lock.withLock { changedIDs } }
    }

    /// A cache reads a voice folder once and again only when it changed on disk (written over by a replace,
    /// here or by another process's store, or a file edited in place) or was forgotten; a voice that went or
    /// changed is told to the engine; a damaged voice's reason is kept too.
    @Test func aCacheReadsAVoiceAgainOnlyWhenItsFolderChanged() throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(at: store.folder) }
        let log = Log()
        let cache = VoiceStore.Cache<String>(store: store, requiring: ["voice.txt"], changed: { log.changed($0) }) { id, url in
            log.read(id)
            let text = try String(contentsOf: url.appendingPathComponent("voice.txt"), encoding: .utf8)
            guard text != "bad" else { throw VoiceStoreError.damaged("it says bad") }
            return StoredVoice(voice: Voice(id: id, engine: "test", language: "en", gender: .unknown), conditioning: text)
        }
        try store.write(id: "a", Self.fill("one"))
        try store.write(id: "b", Self.fill("bad"))
        for _ in 0..<3 {
            #expect(cache.contents.voices.map(\.conditioning) == ["one"])
            #expect(cache.contents.unusable.map(\.problem) == ["it says bad"])
        }
        #expect(log.reads.sorted() == ["a", "b"])
        #expect(try cache.voice("a").conditioning == "one")
        #expect(throws: SpeechError.unusableVoice("b", engine: "test", problem: "it says bad")) { try cache.voice("b") }

        // Replaced through another store value over the same folder, as another process would.
        try VoiceStore(folder: store.folder, engine: "test").write(id: "a", replacing: true, Self.fill("two"))
        #expect(try cache.voice("a").conditioning == "two")
        #expect(log.reads.sorted() == ["a", "a", "b"] && log.changes == ["a"])

        // A file written over in place, with a new size.
        try Data("three!".utf8).write(to: store.folder.appendingPathComponent("a/voice.txt"))
        #expect(try cache.voice("a").conditioning == "three!")
        cache.forget("a")
        #expect(try cache.voice(nil).conditioning == "three!")
        #expect(log.reads.filter { $0 == "a" }.count == 4)

        try store.remove(id: "a")
        #expect(cache.contents.voices.isEmpty)
        #expect(log.changes == ["a", "a", "a"], "\(log.changes)")
        #expect(throws: SpeechError.noVoices(engine: "test")) { try cache.voice(nil) }
    }
}
