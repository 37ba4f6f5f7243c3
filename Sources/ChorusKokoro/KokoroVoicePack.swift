import ChorusDSP
import ChorusFiles
import ChorusModels
import Foundation
import ChorusSpeech
import ZIPFoundation

/// Kokoro voices: per voice, 510 style vectors of 256 floats, one per input length.
///
/// Read from an `.npz` (a zip of `.npy` arrays, one per voice, as Kokoro's releases ship them). Opening
/// the pack reads only the archive's directory, which names the voices; a voice's array is read the first
/// time a call asks for it and kept, so starting an engine reads none of them and a call reads its own
/// voice alone. A damaged array fails the calls that ask for that voice, not the others.
final class KokoroVoicePack: Sendable {
    static let styleWidth = 256
    /// The most bytes a voice's array may take when read, 16 MB: about 32 times a real voice (510 x 256
    /// float32, 0.5 MB), so a damaged or crafted archive cannot make a call read gigabytes into memory.
    static let maximumVoiceBytes = 16 << 20

    /// The `.npz` file the voices are read from.
    let url: URL
    /// The voices the archive holds, sorted.
    let names: [String]

    /// The open archive (ZIPFoundation's `Archive` reads through one file position, so one reader at a
    /// time) and the arrays read so far, voice name to its flattened [lengths x 256] table.
    private struct State {
        var archive: Archive
        var entries: [String: Entry]
        var tables: [String: [Float]] = [:]
    }
    private let state: Locked<State>

    init(contentsOf url: URL) throws {
        self.url = url
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw SpeechError.invalidModelFile(path: url.path, reason: "not a readable .npz (zip) archive")
        }
        var entries: [String: Entry] = [:]
        for entry in archive where entry.path.hasSuffix(".npy") {
            entries[String(entry.path.dropLast(4))] = entry
        }
        guard !entries.isEmpty else { throw SpeechError.invalidModelFile(path: url.path, reason: "holds no .npy voices") }
        names = entries.keys.sorted()
        state = Locked(State(archive: archive, entries: entries))
    }

    /// The style vector of `voice` for an input of `count` ids (Kokoro indexes its table by length - 1).
    /// Reads the voice's array on its first use; throws if it is damaged.
    func style(voice: String, idCount: Int) throws -> [Float] {
        let table = try self.table(voice: voice)
        let rows = table.count / Self.styleWidth
        let row = min(max(idCount - 1, 0), rows - 1)
        return Array(table[(row * Self.styleWidth)..<((row + 1) * Self.styleWidth)])
    }

    /// The whole table of `voice`, read once. The lock is held while a first read runs (a voice is 0.5 MB),
    /// so a voice is never read twice; a read that fails is tried again by the next call.
    func table(voice: String) throws -> [Float] {
        try state.withLock { state in
            if let table = state.tables[voice] { return table }
            guard let entry = state.entries[voice] else {
                throw SpeechError.invalidModelFile(path: url.path, reason: "holds no voice \(voice)")
            }
            let table = try read(entry, voice: voice, from: state.archive)
            state.tables[voice] = table
            return table
        }
    }

    private func read(_ entry: Entry, voice: String, from archive: Archive) throws -> [Float] {
        func damaged(_ problem: String) -> SpeechError {
            .invalidModelFile(path: url.path, reason: "voice \(voice) (\(entry.path)) \(problem); the other voices can still "
                + "be used, and `chorus models verify kokoro` checks the installed file")
        }
        struct TooLarge: Error {}
        var bytes = Data()
        let checksum: CRC32?
        do {
            checksum = try archive.extract(entry, skipCRC32: false) { chunk in
                guard bytes.count + chunk.count <= Self.maximumVoiceBytes else { throw TooLarge() }
                bytes.append(chunk)
            }
        } catch is TooLarge {
            throw damaged("is larger than \(Self.maximumVoiceBytes >> 20) MB, far more than a voice's 0.5 MB")
        } catch {
            checksum = nil
        }
        // ZIPFoundation returns the CRC-32 of what it read but does not compare it with the entry's.
        guard let checksum, checksum == entry.checksum else {
            throw damaged("is damaged: it cannot be read back as the archive stored it")
        }
        let values: [Float]
        do { values = try NPYFile.decode(bytes, path: "\(url.path):\(entry.path)").values } catch {
            throw damaged("is not a float array: \(error)")
        }
        guard values.count % Self.styleWidth == 0, !values.isEmpty else {
            throw damaged("has \(values.count) values, not a multiple of \(Self.styleWidth)")
        }
        return values
    }
}
