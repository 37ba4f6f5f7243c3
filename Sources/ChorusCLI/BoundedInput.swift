import ArgumentParser
import Foundation

/// Reads a whole input that may be endless or huge (`/dev/zero`, a runaway pipe) without ever holding
/// more than a limit: the read stops one byte past it, so memory stays bounded whatever arrives.
enum BoundedInput {
    /// The most audio `vad -` and `transcribe -` read whole from standard input: 2.3 hours of 16 kHz 16-bit mono,
    /// 23 minutes of 48 kHz 24-bit stereo; longer audio is given as a file, which is mapped, not copied.
    static let audioLimit = 256 * 1_048_576

    /// Everything on `descriptor` up to its end, or nil as soon as more than `limit` bytes arrive.
    static func read(_ descriptor: Int32, limit: Int) throws -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let wanted = min(buffer.count, limit + 1 - data.count)
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            if data.count > limit { return nil }
        }
    }

    /// Standard input, whole, refused with `tooLarge` (a sentence naming the limit) once over `limit` bytes.
    static func standardInput(limit: Int, tooLarge: String) throws -> Data {
        do {
            guard let data = try read(STDIN_FILENO, limit: limit) else { throw ValidationError(tooLarge) }
            return data
        } catch let error as POSIXError {
            throw ValidationError("Cannot read standard input: \(String(cString: strerror(error.code.rawValue))).")
        }
    }

    /// Megabytes, for messages.
    static func megabytes(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? "\(bytes / 1_048_576) MB" : String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
