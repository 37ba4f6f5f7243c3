import ChorusAudio
import ChorusTesting
@testable import ChorusServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The web playground: its page and files, and its history routes over SQLite in a temporary folder.
@Suite struct PlaygroundTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func server(history folder: URL?, key: String? = nil) -> SpeechServer {
        fakeServer(ServerConfiguration(port: 0, apiKey: key.flatMap(BearerKey.init), historyFolder: folder))
    }

    /// A 16-bit mono WAV of `seconds` at `rate`, as the page sends.
    static func wav(seconds: Double, rate: Int = 24_000) throws -> Data {
        let samples = (0..<Int(seconds * Double(rate))).map { Float(sin(Double($0) * 0.05)) * 0.3 }
        return try WAVWriter.encode(samples, sampleRate: rate, channels: 1, format: .pcm16)
    }

    static func entryForm(text: String = "Hello there.", engine: String = "fake", voice: String = "alpha",
                          speed: String = "1.25", firstAudio: String = "312", audio: Data) -> (HTTPFields, ByteBuffer) {
        form([("text", text), ("engine", engine), ("voice", voice), ("speed", speed), ("first_audio_ms", firstAudio)],
             files: [("audio", "speech.wav", audio)])
    }

    struct Listing: Decodable { var entries: [HistoryEntry] }

    @Test func thePageAndItsFilesAreServedWithTheirTypesAndNothingFromElsewhere() async throws {
        try await Self.server(history: nil).makeApplication().test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains(#"<script src="/playground.js" defer></script>"#))
            #expect(html.contains(#"id="history-list""#) && html.contains(#"id="clone-form""#) && html.contains(#"id="transcribe-form""#))
            #expect(!html.contains("http://") && !html.contains("https://"))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.hasPrefix("default-src 'self'") == true)

            let script = try await client.execute(uri: "/playground.js", method: .get)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(String(buffer: script.body).contains("/v1/audio/speech"))
            let style = try await client.execute(uri: "/playground.css", method: .get)
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            #expect(String(buffer: style.body).contains("@media (max-width"))

            let elsewhere = try await client.execute(uri: "/index.html/../Package.swift", method: .get)
            #expect(elsewhere.status == .notFound)
        }
    }

    @Test func aMissingPageFolderIsA404ThatSaysWhatToCopy() async throws {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil),
                                  engines: [served(FakeSynthesizer())],
                                  playgroundFolder: URL(fileURLWithPath: "/nonexistent/playground"))
        try await server.makeApplication().test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .notFound)
            #expect(try ErrorBody(page.body).error.code == "playground_missing")
        }
    }

    @Test func anUtteranceIsKeptListedReplayedDownloadedAndDeleted() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = try Self.wav(seconds: 1.5)
        try await Self.server(history: folder).makeApplication().test(.router) { client in
            let empty = try await client.execute(uri: "/playground/history", method: .get)
            #expect(try JSONDecoder().decode(Listing.self, from: Data(buffer: empty.body)).entries.isEmpty)

            let (headers, body) = Self.entryForm(audio: audio)
            let created = try await client.execute(uri: "/playground/history", method: .post, headers: headers, body: body)
            #expect(created.status == .created)
            let entry = try JSONDecoder().decode(HistoryEntry.self, from: Data(buffer: created.body))
            #expect(entry.text == "Hello there." && entry.engine == "fake" && entry.voice == "alpha")
            #expect(entry.speed == 1.25 && entry.firstAudioMilliseconds == 312)
            // The duration is the WAV's own, not the page's word.
            #expect(entry.duration == 1.5 && entry.sampleRate == 24_000)
            #expect(abs(entry.created - Date().timeIntervalSince1970) < 3_600)

            let (headers2, body2) = Self.entryForm(text: "Second.", audio: try Self.wav(seconds: 0.5, rate: 16_000))
            _ = try await client.execute(uri: "/playground/history", method: .post, headers: headers2, body: body2)
            let listed = try await client.execute(uri: "/playground/history", method: .get)
            let entries = try JSONDecoder().decode(Listing.self, from: Data(buffer: listed.body)).entries
            #expect(entries.map(\.text) == ["Second.", "Hello there."])
            #expect(entries.last == entry)
            let one = try await client.execute(uri: "/playground/history?limit=1", method: .get)
            #expect(try JSONDecoder().decode(Listing.self, from: Data(buffer: one.body)).entries.map(\.text) == ["Second."])

            let replay = try await client.execute(uri: "/playground/history/\(entry.id)/audio", method: .get)
            #expect(replay.status == .ok)
            #expect(replay.headers[.contentType] == "audio/wav")
            #expect(Data(buffer: replay.body) == audio)
            #expect(replay.headers[.contentDisposition] == "inline; filename=\"chorus-\(entry.id)-alpha.wav\"")
            let saved = try await client.execute(uri: "/playground/history/\(entry.id)/audio?download=1", method: .get)
            #expect(saved.headers[.contentDisposition] == "attachment; filename=\"chorus-\(entry.id)-alpha.wav\"")

            let deleted = try await client.execute(uri: "/playground/history/\(entry.id)", method: .delete)
            #expect(deleted.status == .noContent)
            let again = try await client.execute(uri: "/playground/history/\(entry.id)", method: .delete)
            #expect(again.status == .notFound)
            #expect(try ErrorBody(again.body).error.code == "entry_not_found")
            let gone = try await client.execute(uri: "/playground/history/\(entry.id)/audio", method: .get)
            #expect(gone.status == .notFound)
            let notAnID = try await client.execute(uri: "/playground/history/abc/audio", method: .get)
            #expect(notAnID.status == .notFound)
        }
    }

    @Test func theHistoryOutlivesTheServerThatWroteIt() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.server(history: folder).makeApplication().test(.router) { client in
            let (headers, body) = Self.entryForm(text: "Remember me.", audio: try Self.wav(seconds: 0.25))
            #expect(try await client.execute(uri: "/playground/history", method: .post, headers: headers, body: body).status == .created)
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("history.sqlite").path))
        try await Self.server(history: folder).makeApplication().test(.router) { client in
            let listed = try await client.execute(uri: "/playground/history", method: .get)
            #expect(try JSONDecoder().decode(Listing.self, from: Data(buffer: listed.body)).entries.map(\.text) == ["Remember me."])
        }
    }

    @Test func theHistoryKeepsItsNewestEntriesOnly() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = PlaygroundHistory(folder: folder, limit: 3)
        for index in 1...5 {
            _ = try await history.add(text: "\(index)", engine: "fake", voice: "v", speed: 1, duration: 1, sampleRate: 24_000,
                                      firstAudioMilliseconds: nil, wav: Data([UInt8(index)]))
        }
        #expect(try await history.entries(count: 10).map(\.text) == ["5", "4", "3"])
        #expect(try await history.audio(id: 2) == nil)
        #expect(try await history.audio(id: 4)?.wav == Data([4]))
    }

    @Test(arguments: [
        ([("engine", "fake"), ("voice", "v")], true, "text"),
        ([("text", "   "), ("engine", "fake"), ("voice", "v")], true, "text"),
        ([("text", "Hi."), ("engine", "fake")], true, "voice"),
        ([("text", "Hi."), ("engine", "fake"), ("voice", "v"), ("speed", "fast")], true, "speed"),
        ([("text", "Hi."), ("engine", "fake"), ("voice", "v"), ("first_audio_ms", "-1")], true, "first_audio_ms"),
        ([("text", "Hi."), ("engine", "fake"), ("voice", "v")], false, "audio"),
    ] as [([(String, String)], Bool, String)])
    func badEntriesAreRefusedNamingTheField(fields: [(String, String)], attachesWAV: Bool, param: String) async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.server(history: folder).makeApplication().test(.router) { client in
            let file = attachesWAV ? try Self.wav(seconds: 0.5) : Data("not a wav at all".utf8)
            let (headers, body) = form(fields.map { (name: $0.0, value: $0.1) }, files: [("audio", "speech.wav", file)])
            let response = try await client.execute(uri: "/playground/history", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest)
            #expect(try ErrorBody(response.body).error.param == param)
            let listed = try await client.execute(uri: "/playground/history", method: .get)
            #expect(try JSONDecoder().decode(Listing.self, from: Data(buffer: listed.body)).entries.isEmpty)
        }
    }

    @Test func anEntryOfAnEngineNotServedIsA404() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.server(history: folder).makeApplication().test(.router) { client in
            let (headers, body) = Self.entryForm(engine: "nonesuch", audio: try Self.wav(seconds: 0.5))
            let response = try await client.execute(uri: "/playground/history", method: .post, headers: headers, body: body)
            #expect(response.status == .notFound)
            #expect(try ErrorBody(response.body).error.param == "model")
            let badLimit = try await client.execute(uri: "/playground/history?limit=0", method: .get)
            #expect(try ErrorBody(badLimit.body).error.param == "limit")
        }
    }

    @Test func withoutAFolderTheHistoryIsOffAndSaysSo() async throws {
        try await Self.server(history: nil).makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/playground/history", method: .get)
            #expect(response.status == .notFound)
            #expect(try ErrorBody(response.body).error.code == "history_off")
        }
    }

    @Test func withAKeyTheHistoryWantsItAndThePageDoesNot() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.server(history: folder, key: "sesame").makeApplication().test(.router) { client in
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/playground.js", method: .get).status == .ok)
            let refused = try await client.execute(uri: "/playground/history", method: .get)
            #expect(refused.status == .unauthorized)
            let (headers, body) = Self.entryForm(audio: try Self.wav(seconds: 0.5))
            let write = try await client.execute(uri: "/playground/history", method: .post, headers: headers, body: body)
            #expect(write.status == .unauthorized)
            let allowed = try await client.execute(uri: "/playground/history", method: .get, headers: [.authorization: "Bearer sesame"])
            #expect(allowed.status == .ok)
        }
    }

    @Test func anUnwritableFolderIsA500ThatNamesIt() async throws {
        let file = try Self.temporaryFolder().appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // A folder inside a regular file cannot be made.
        try await Self.server(history: file.appendingPathComponent("history")).makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/playground/history", method: .get)
            #expect(response.status == .internalServerError)
            // Named by its last component only: a 500 shows no server path (issue 41, item 5).
            let message = try ErrorBody(response.body).error.message
            #expect(!message.contains(file.path))
            #expect(message.contains("…/history") || message.contains("…/a-file"), "\(message)")
        }
    }
}
