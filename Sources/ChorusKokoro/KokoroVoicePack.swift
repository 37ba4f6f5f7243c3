import ChorusDSP
import Foundation
import ChorusSpeech
import ZIPFoundation

/// Kokoro voices: per voice, 510 style vectors of 256 floats, one per input length.
///
/// Read from an `.npz` (a zip of `.npy` arrays, one per voice, as Kokoro's releases ship them).
struct KokoroVoicePack: Sendable {
    static let styleWidth = 256

    /// Voice name to its flattened [lengths x 256] style table.
    let styles: [String: [Float]]

    init(contentsOf url: URL) throws {
        func invalid(_ reason: String) -> SpeechError { .invalidModelFile(path: url.path, reason: reason) }
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw invalid("not a readable .npz (zip) archive")
        }
        var styles: [String: [Float]] = [:]
        for entry in archive where entry.path.hasSuffix(".npy") {
            var bytes = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { bytes.append($0) }
            } catch {
                throw invalid("entry \(entry.path) is damaged")
            }
            let name = String(entry.path.dropLast(4))
            let values: [Float]
            do { values = try NPYFile.decode(bytes, path: "\(url.path):\(entry.path)").values } catch {
                throw invalid("voice \(name): \(error)")
            }
            guard values.count % Self.styleWidth == 0, !values.isEmpty else {
                throw invalid("voice \(name) has \(values.count) values, not a multiple of \(Self.styleWidth)")
            }
            styles[name] = values
        }
        guard !styles.isEmpty else { throw invalid("holds no .npy voices") }
        self.styles = styles
    }

    /// The style vector for an input of `count` ids (Kokoro indexes its table by length - 1).
    func style(voice: String, idCount: Int) -> [Float] {
        let table = styles[voice]!
        let rows = table.count / Self.styleWidth
        let row = min(max(idCount - 1, 0), rows - 1)
        return Array(table[(row * Self.styleWidth)..<((row + 1) * Self.styleWidth)])
    }
}
