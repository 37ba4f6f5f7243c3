import Foundation

/// Errors reading or writing NumPy `.npy` files.
public enum NPYError: Error, Equatable, CustomStringConvertible, Sendable {
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case malformed(path: String, reason: String)
    case unsupportedType(path: String, descr: String)
    case shapeMismatch(shape: [Int], count: Int)

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "Cannot read \(path): \(reason)."
        case .cannotWrite(let path, let reason): "Cannot write \(path): \(reason). Check the folder is writable."
        case .malformed(let path, let reason): "\(path) is not a valid .npy file: \(reason)."
        case .unsupportedType(let path, let descr):
            "\(path) holds dtype \(descr); Chorus reads little-endian float32/64 and int16/32/64 only. "
                + "Save it with numpy as float32."
        case .shapeMismatch(let shape, let count): "Shape \(shape) does not hold \(count) values."
        }
    }
}

/// A C-ordered NumPy array, as stored in a `.npy` file (format version 1.0), held as Float.
public struct NPYFile: Sendable, Equatable {
    /// The array's dimensions, outermost first.
    public var shape: [Int]
    /// The values in C (row-major) order.
    public var values: [Float]

    /// An array of `shape` holding `values`.
    public init(shape: [Int], values: [Float]) throws {
        guard shape.allSatisfy({ $0 >= 0 }), shape.reduce(1, *) == values.count else {
            throw NPYError.shapeMismatch(shape: shape, count: values.count)
        }
        self.shape = shape
        self.values = values
    }

    /// A 2-D array from rows of equal length.
    public init(rows: [[Float]]) throws {
        let width = rows.first?.count ?? 0
        try self.init(shape: [rows.count, width], values: rows.flatMap { $0 })
    }

    /// The rows of a 2-D array.
    public var rows: [[Float]] {
        guard shape.count == 2, shape[1] > 0 else { return shape.count == 2 ? Array(repeating: [], count: shape[0]) : [] }
        return (0..<shape[0]).map { Array(values[($0 * shape[1])..<(($0 + 1) * shape[1])]) }
    }

    /// The file's bytes: a version 1.0 header with dtype `<f4`, then the values.
    public func encoded() -> Data {
        let dims = shape.map(String.init).joined(separator: ", ")
        let shapeText = shape.count == 1 ? "(\(dims),)" : "(\(dims))"
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shapeText), }"
        // Magic (6) + version (2) + length (2) + header + newline is padded to a multiple of 64 bytes.
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(header.utf8.count)
        data.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
        data.append(contentsOf: Array(header.utf8))
        values.withUnsafeBufferPointer { buffer in
            for value in buffer {
                withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return data
    }

    /// Writes the array to `url`.
    public func write(to url: URL) throws {
        do {
            try encoded().write(to: url, options: .atomic)
        } catch {
            throw NPYError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Reads the `.npy` file at `url`.
    public static func read(contentsOf url: URL) throws -> NPYFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw NPYError.cannotRead(path: url.path, reason: error.localizedDescription)
        }
        return try decode(data, path: url.path)
    }

    /// Parses the bytes of a `.npy` file (version 1, 2 or 3, C order, little-endian numbers).
    public static func decode(_ data: Data, path: String = "<memory>") throws -> NPYFile {
        let bytes = [UInt8](data)
        func fail(_ reason: String) -> NPYError { .malformed(path: path, reason: reason) }
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8) else {
            throw fail("the magic string \\x93NUMPY is missing")
        }
        let major = bytes[6]
        let headerLength: Int
        let headerStart: Int
        if major == 1 {
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        } else if major == 2 || major == 3, bytes.count >= 12 {
            headerLength = (0..<4).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
            headerStart = 12
        } else {
            throw fail("format version \(major) is unknown")
        }
        guard headerStart + headerLength <= bytes.count else { throw fail("the header runs past the end") }
        let header = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        guard let descr = field("descr", in: header)?.trimmingCharacters(in: CharacterSet(charactersIn: "'\" ")),
              let shapeText = field("shape", in: header)
        else { throw fail("the header lacks descr or shape") }
        if let order = field("fortran_order", in: header), order.contains("True") {
            throw fail("Fortran order is not supported; save with numpy.ascontiguousarray")
        }
        let shape = shapeText.trimmingCharacters(in: CharacterSet(charactersIn: "() "))
            .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var count = 1
        for dimension in shape {
            guard dimension >= 0, count.multipliedReportingOverflow(by: dimension).overflow == false else {
                throw fail("the shape \(shapeText) is invalid")
            }
            count *= dimension
        }
        let widths = ["<f4": 4, "<f8": 8, "<i2": 2, "<i4": 4, "<i8": 8]
        guard let width = widths[descr] else { throw NPYError.unsupportedType(path: path, descr: descr) }
        let start = headerStart + headerLength
        guard count <= (bytes.count - start) / width else { throw fail("it holds fewer values than its shape \(shape)") }
        let values: [Float] = bytes.withUnsafeBytes { raw in
            let body = UnsafeRawBufferPointer(rebasing: raw[start...])
            return (0..<count).map { index in
                switch descr {
                case "<f4": Float(bitPattern: UInt32(littleEndian: body.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                case "<f8": Float(Double(bitPattern: UInt64(littleEndian: body.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))))
                case "<i2": Float(Int16(littleEndian: body.loadUnaligned(fromByteOffset: 2 * index, as: Int16.self)))
                case "<i4": Float(Int32(littleEndian: body.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)))
                default: Float(Int64(littleEndian: body.loadUnaligned(fromByteOffset: 8 * index, as: Int64.self)))
                }
            }
        }
        return try NPYFile(shape: shape, values: values)
    }

    /// The text after `'key':` up to the next top-level comma (a tuple's commas are inside parentheses).
    private static func field(_ key: String, in header: String) -> String? {
        guard let keyRange = header.range(of: "'\(key)':") else { return nil }
        var depth = 0
        var text = ""
        for character in header[keyRange.upperBound...] {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == ",", depth == 0 { break }
            if character == "}", depth == 0 { break }
            text.append(character)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
