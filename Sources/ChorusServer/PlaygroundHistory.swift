import Foundation
import GRDB

/// One utterance the playground spoke: what was said, by which engine and voice, and how long it lasts.
/// Its audio (a WAV file) is kept beside it in the same row and fetched on its own. The database's
/// columns are named as the JSON's keys.
struct HistoryEntry: Codable, Equatable, Sendable, FetchableRecord {
    var id: Int64
    var text: String
    var engine: String
    var voice: String
    var speed: Double
    /// Seconds of audio.
    var duration: Double
    var sampleRate: Int
    /// Milliseconds from the request to its first audio, as the page measured it.
    var firstAudioMilliseconds: Double?
    /// When it was spoken, in seconds since 1970.
    var created: Double

    enum CodingKeys: String, CodingKey {
        case id, text, engine, voice, speed, duration, created
        case sampleRate = "sample_rate"
        case firstAudioMilliseconds = "first_audio_ms"
    }
}

/// The playground's history in SQLite (GRDB): `history.sqlite` in its folder, opened on first use
/// and migrated in place. It keeps the newest `limit` entries and drops older ones as new ones come.
///
/// Several servers may share the folder (one machine, several instances): SQLite's file locks order
/// their writes, and a writer waits for a busy file rather than failing.
actor PlaygroundHistory {
    /// How many entries are kept by default.
    static let defaultLimit = 200

    let folder: URL
    let limit: Int
    private var database: DatabaseQueue?

    init(folder: URL, limit: Int = PlaygroundHistory.defaultLimit) {
        self.folder = folder
        self.limit = limit
    }

    var file: URL { folder.appendingPathComponent("history.sqlite") }

    /// The newest entries first, at most `count`.
    func entries(count: Int) async throws -> [HistoryEntry] {
        try await open().read { db in
            try HistoryEntry.fetchAll(db, sql: """
                SELECT id, text, engine, voice, speed, duration, sample_rate, first_audio_ms, created
                FROM utterance ORDER BY id DESC LIMIT ?
                """, arguments: [max(0, count)])
        }
    }

    /// Adds an utterance and its WAV file; returns the entry as stored.
    func add(text: String, engine: String, voice: String, speed: Double, duration: Double, sampleRate: Int,
             firstAudioMilliseconds: Double?, wav: Data, created: Date = Date()) async throws -> HistoryEntry {
        let limit = limit
        return try await open().write { db in
            try db.execute(sql: """
                INSERT INTO utterance (text, engine, voice, speed, duration, sample_rate, first_audio_ms, created, audio)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [text, engine, voice, speed, duration, sampleRate, firstAudioMilliseconds,
                                 created.timeIntervalSince1970, wav])
            let id = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM utterance WHERE id NOT IN (SELECT id FROM utterance ORDER BY id DESC LIMIT ?)",
                           arguments: [limit])
            return HistoryEntry(id: id, text: text, engine: engine, voice: voice, speed: speed, duration: duration,
                                sampleRate: sampleRate, firstAudioMilliseconds: firstAudioMilliseconds,
                                created: created.timeIntervalSince1970)
        }
    }

    /// The entry `id` and its WAV file; nil when there is none.
    func audio(id: Int64) async throws -> (entry: HistoryEntry, wav: Data)? {
        try await open().read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM utterance WHERE id = ?", arguments: [id]) else { return nil }
            return (try HistoryEntry(row: row), row["audio"])
        }
    }

    /// Removes the entry `id`; false when there was none.
    func remove(id: Int64) async throws -> Bool {
        try await open().write { db in
            try db.execute(sql: "DELETE FROM utterance WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// The database, created and migrated on first use; a folder that cannot hold it is an error that
    /// names it.
    private func open() throws -> DatabaseQueue {
        if let database { return database }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: file.path, configuration: configuration)
            try Self.migrator.migrate(queue)
            database = queue
            return queue
        } catch {
            throw APIError.server(PlaygroundHistoryError(file: file, underlying: error))
        }
    }

    /// The schema's steps, in order; a step once shipped never changes (add a new one).
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("utterances") { db in
            try db.create(table: "utterance") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("text", .text).notNull()
                table.column("engine", .text).notNull()
                table.column("voice", .text).notNull()
                table.column("speed", .double).notNull()
                table.column("duration", .double).notNull()
                table.column("sample_rate", .integer).notNull()
                table.column("first_audio_ms", .double)
                table.column("created", .double).notNull()
                table.column("audio", .blob).notNull()
            }
        }
        return migrator
    }
}

/// The history database could not be opened where the server keeps it.
struct PlaygroundHistoryError: Error, CustomStringConvertible {
    let file: URL
    let underlying: any Error

    var description: String {
        "the playground history at \(file.path) could not be opened (\(underlying)); "
            + "make its folder writable or start chorus serve with --history-folder elsewhere"
    }
}
