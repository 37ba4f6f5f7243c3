import ChorusAudio
import Foundation

/// A `multipart/form-data` body (RFC 7578), read whole: its fields by name, files with their names.
struct MultipartForm: Sendable {
    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var data: Data
    }

    var parts: [Part]
    /// The bytes the parse's searches passed over: about the body's length, since each search starts where
    /// the last ended (a parse that searched from the start again for each part would pass over the body once
    /// per part).
    private(set) var bytesSearched = 0

    /// The text of the field `name`, if present.
    func text(_ name: String) -> String? {
        parts.first { $0.name == name && $0.filename == nil }.map { String(decoding: $0.data, as: UTF8.self) }
            ?? parts.first { $0.name == name }.map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// The part `name` (usually a file), if present.
    func part(_ name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The part `name` (else `alternative`) and the header of the WAV file it holds, judged against `limits`
    /// without decoding a sample; a 400 naming the field when it is missing, not a WAV, or outside the limits.
    /// `what` is the file as the messages call it ("the clip").
    func wavFile(_ name: String, or alternative: String? = nil, what: String,
                 limits: AudioInputLimits = .file) throws -> (part: Part, wav: WAVFile.Header) {
        guard let file = part(name) ?? alternative.flatMap(part) else {
            throw APIError.invalid("Attach \(what) as the form's '\(name)' file (a WAV of any rate).", param: name)
        }
        do {
            let path = file.filename ?? name
            let header = try WAVFile.header(of: file.data, path: path)
            try limits.check(sampleRate: header.sampleRate, channels: header.channels, frames: header.frameCount, path: path)
            return (file, header)
        } catch {
            throw APIError.invalid("\(what.prefix(1).uppercased() + what.dropFirst()) is not a WAV file this server reads: \(error)",
                                   param: name)
        }
    }

    /// Parses `body` sent with `contentType` (which names the boundary); a 400 saying what is wrong
    /// otherwise, a 413 past `maximumParts` parts. Each search starts where the last ended, so the time
    /// is linear in the body whatever the number of parts.
    init(contentType: String?, body: Data, maximumParts: Int) throws {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else {
            throw APIError.invalid("Send this request as multipart/form-data (a file upload form).", code: "not_multipart")
        }
        guard let boundary = Self.parameter("boundary", in: contentType), (1...200).contains(boundary.utf8.count) else {
            throw APIError.invalid("The multipart Content-Type names no boundary (or one longer than 200 bytes).", code: "not_multipart")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let nextDelimiter = Array("\r\n--\(boundary)".utf8)
        let headerEnd = Array("\r\n\r\n".utf8)
        var searched = 0
        parts = try body.withUnsafeBytes { bytes -> [Part] in
            func find(_ needle: [UInt8], from start: Int) -> Int? {
                let found = Self.find(needle, in: bytes, from: start)
                searched += (found ?? bytes.count) - start
                return found
            }
            func starts(with text: String, at offset: Int) -> Bool {
                let prefix = Array(text.utf8)
                return offset + prefix.count <= bytes.count && zip(bytes[offset...], prefix).allSatisfy { $0 == $1 }
            }
            guard var cursor = find(delimiter, from: 0).map({ $0 + delimiter.count }) else {
                throw APIError.invalid("The multipart body does not contain its boundary.", code: "bad_multipart")
            }
            var parts: [Part] = []
            while true {
                // After a delimiter: "--" ends the form, CRLF starts a part.
                if starts(with: "--", at: cursor) { break }
                guard starts(with: "\r\n", at: cursor) else {
                    throw APIError.invalid("The multipart body is malformed after a boundary.", code: "bad_multipart")
                }
                cursor += 2
                guard parts.count < maximumParts else {
                    throw APIError(.contentTooLarge, "The form has more than \(maximumParts) parts; send only the fields this route takes.",
                                   code: "too_many_parts")
                }
                guard let headersEnd = find(headerEnd, from: cursor),
                      let next = find(nextDelimiter, from: headersEnd + headerEnd.count) else {
                    throw APIError.invalid("The multipart body ends in the middle of a part.", code: "bad_multipart")
                }
                let headers = String(decoding: bytes[cursor..<headersEnd], as: UTF8.self)
                var disposition: String?
                var type: String?
                for line in headers.components(separatedBy: "\r\n") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    if field == "content-disposition" { disposition = value }
                    if field == "content-type" { type = value }
                }
                guard let disposition, let name = Self.parameter("name", in: disposition) else {
                    throw APIError.invalid("A multipart part has no Content-Disposition name.", code: "bad_multipart")
                }
                parts.append(Part(name: name, filename: Self.parameter("filename", in: disposition), contentType: type,
                                  data: Data(bytes[(headersEnd + headerEnd.count)..<next])))
                cursor = next + nextDelimiter.count
            }
            return parts
        }
        bytesSearched = searched
    }

    /// The offset of the first `needle` in `bytes` at or after `start`; nil when there is none. Each
    /// candidate is found with `memchr` and compared in full, so the work is at most the bytes searched
    /// times the needle's length (a boundary is at most 200 bytes), never a search started over.
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, let base = bytes.baseAddress else { return nil }
        var offset = start
        while offset + needle.count <= bytes.count {
            guard let hit = memchr(base + offset, Int32(first), bytes.count - offset) else { return nil }
            let position = base.distance(to: UnsafeRawPointer(hit))
            guard position + needle.count <= bytes.count else { return nil }
            if memcmp(base + position, needle, needle.count) == 0 { return position }
            offset = position + 1
        }
        return nil
    }

    /// The value of `name=value` or `name="value"` in a header value's `;`-separated parameters.
    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            return value
        }
        return nil
    }
}
