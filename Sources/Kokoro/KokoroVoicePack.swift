import Foundation
import Speech
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
            let values = try Self.float32Array(npy: bytes, path: "\(url.path):\(entry.path)")
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

    /// Parses a little-endian float32 C-order `.npy` (format 1.0, 2.0 or 3.0) into its values.
    static func float32Array(npy data: Data, path: String) throws -> [Float] {
        func invalid(_ reason: String) -> SpeechError { .invalidModelFile(path: path, reason: reason) }
        let bytes = [UInt8](data)
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1...5]) == Array("NUMPY".utf8) else {
            throw invalid("not a .npy array")
        }
        let major = bytes[6]
        let headerStart = major == 1 ? 10 : 12
        guard bytes.count >= headerStart else { throw invalid("truncated .npy header") }
        let headerLength = major == 1
            ? Int(bytes[8]) | Int(bytes[9]) << 8
            : Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
        guard headerStart + headerLength <= bytes.count else { throw invalid("truncated .npy header") }
        let header = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        guard header.contains("'descr': '<f4'") else { throw invalid("expected little-endian float32 ('<f4')") }
        guard header.contains("'fortran_order': False") else { throw invalid("Fortran-ordered arrays are not supported") }
        let payload = bytes[(headerStart + headerLength)...]
        guard payload.count % 4 == 0 else { throw invalid("data is not a whole number of float32 values") }
        return payload.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian) }
        }
    }
}
