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

    /// The text of the field `name`, if present.
    func text(_ name: String) -> String? {
        parts.first { $0.name == name && $0.filename == nil }.map { String(decoding: $0.data, as: UTF8.self) }
            ?? parts.first { $0.name == name }.map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// The part `name` (usually a file), if present.
    func part(_ name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The part `name` (else `alternative`) and the WAV file it holds, decoded; a 400 naming the field when
    /// it is missing or not a WAV. `what` is the file as the messages call it ("the clip").
    func wavFile(_ name: String, or alternative: String? = nil, what: String) throws -> (part: Part, wav: WAVFile) {
        guard let file = part(name) ?? alternative.flatMap(part) else {
            throw APIError.invalid("Attach \(what) as the form's '\(name)' file (a WAV of any rate).", param: name)
        }
        do {
            return (file, try WAVFile.decode(file.data, path: file.filename ?? name))
        } catch {
            throw APIError.invalid("\(what.prefix(1).uppercased() + what.dropFirst()) is not a WAV file this server reads: \(error)",
                                   param: name)
        }
    }

    /// Parses `body` sent with `contentType` (which names the boundary); a 400 saying what is wrong otherwise.
    init(contentType: String?, body: Data) throws {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else {
            throw APIError.invalid("Send this request as multipart/form-data (a file upload form).", code: "not_multipart")
        }
        guard let boundary = Self.parameter("boundary", in: contentType), !boundary.isEmpty else {
            throw APIError.invalid("The multipart Content-Type names no boundary.", code: "not_multipart")
        }
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var parts: [Part] = []
        guard var cursor = body.range(of: delimiter)?.upperBound else {
            throw APIError.invalid("The multipart body does not contain its boundary.", code: "bad_multipart")
        }
        while true {
            // After a delimiter: "--" ends the form, CRLF starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { break }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else {
                throw APIError.invalid("The multipart body is malformed after a boundary.", code: "bad_multipart")
            }
            cursor += 2
            guard let headersRange = body.range(of: headerEnd, in: cursor..<body.endIndex),
                  let next = body.range(of: Data("\r\n".utf8) + delimiter, in: headersRange.upperBound..<body.endIndex) else {
                throw APIError.invalid("The multipart body ends in the middle of a part.", code: "bad_multipart")
            }
            let headers = String(decoding: body[cursor..<headersRange.lowerBound], as: UTF8.self)
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
                              data: Data(body[headersRange.upperBound..<next.lowerBound])))
            cursor = next.upperBound
        }
        self.parts = parts
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
