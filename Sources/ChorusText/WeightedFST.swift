import Foundation

/// A weighted finite-state transducer over the tropical semiring, read from an OpenFst binary file.
///
/// Only what text-normalisation grammars (wetext, Pynini exports) need: the `vector` FST type with
/// `standard` arcs (32-bit labels, a float weight, 32-bit target state). Arcs are kept in flat arrays,
/// state by state in file order, because `bestOutput(for:)` must visit them in exactly that order to break
/// ties the way OpenFst does.
public struct WeightedFST: Sendable {
    /// The file the graph came from, for error messages.
    public let name: String
    /// The start state, or -1 for an empty graph.
    public let start: Int32
    /// Final weight per state; `.infinity` (the tropical zero) when the state is not final.
    let finals: [Float]
    /// Arcs of state `s` are `arcStart[s] ..< arcStart[s + 1]`.
    let arcStart: [Int32]
    let inputLabels: [Int32]
    let outputLabels: [Int32]
    let weights: [Float]
    let targets: [Int32]
    /// Whether every state's arcs are sorted by input label (always so in wetext's graphs); lets the
    /// matcher binary-search instead of scanning.
    let inputLabelSorted: Bool

    /// Number of states.
    var stateCount: Int { finals.count }
    /// Number of arcs.
    var arcCount: Int { targets.count }

    /// OpenFst's file magic number (`kFstMagicNumber`).
    static let magic: Int32 = 2_125_659_606
    /// OpenFst's symbol-table magic number (`kSymbolTableMagicNumber`), for skipping embedded tables.
    static let symbolTableMagic: Int32 = 2_125_658_996

    /// Reads the OpenFst binary file at `url`.
    public init(contentsOf url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw WeightedFSTError.missingFile(path: url.path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw WeightedFSTError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        try self.init(data: data, name: url.path)
    }

    /// Parses the bytes of an OpenFst binary file; `name` is used in errors.
    public init(data: Data, name: String) throws {
        var reader = FSTFileReader(data: data, name: name)
        guard try reader.int32() == Self.magic else { throw WeightedFSTError.notAnFST(path: name) }
        let fstType = try reader.string()
        let arcType = try reader.string()
        let version = try reader.int32()
        // OpenFst writes the vector type at version 2; other types lay states out differently.
        guard fstType == "vector" else {
            throw WeightedFSTError.unsupported(path: name, feature: "FST type '\(fstType)' (only 'vector' is read)")
        }
        guard arcType == "standard" else {
            throw WeightedFSTError.unsupported(path: name, feature: "arc type '\(arcType)' (only 'standard' is read)")
        }
        guard version == 2 else {
            throw WeightedFSTError.unsupported(path: name, feature: "vector FST version \(version) (only 2 is read)")
        }
        let flags = try reader.int32()
        _ = try reader.uint64()  // properties: recomputed where needed, never trusted
        let start = try reader.int64()
        let stateCount = try reader.int64()
        _ = try reader.int64()  // arc count: vector files may leave it 0
        guard stateCount >= 0, stateCount < Int64(Int32.max), start >= -1, start < max(stateCount, 1) else {
            throw WeightedFSTError.corrupt(path: name, problem: "start state \(start) with \(stateCount) states")
        }
        // Header flags 1 and 2 mean input and output symbol tables follow; byte graphs need neither.
        if flags & 1 != 0 { try reader.skipSymbolTable() }
        if flags & 2 != 0 { try reader.skipSymbolTable() }

        let states = Int(stateCount)
        // Every state takes at least 12 bytes, so a huge count in a short file is caught before allocating.
        guard states <= reader.remaining / 12 else {
            throw WeightedFSTError.truncated(path: name, offset: data.count,
                                             needed: "\(states) states, at least \(states * 12) bytes")
        }
        var finals = [Float](repeating: .infinity, count: states)
        var arcStart = [Int32](repeating: 0, count: states + 1)
        var inputLabels: [Int32] = [], outputLabels: [Int32] = [], weights: [Float] = [], targets: [Int32] = []
        let estimatedArcs = reader.remaining / 16
        inputLabels.reserveCapacity(estimatedArcs)
        outputLabels.reserveCapacity(estimatedArcs)
        weights.reserveCapacity(estimatedArcs)
        targets.reserveCapacity(estimatedArcs)
        var sorted = true
        for state in 0..<states {
            finals[state] = try reader.float()
            let arcs = try reader.int64()
            guard arcs >= 0, arcs <= Int64(reader.remaining / 16) else {
                throw WeightedFSTError.truncated(path: name, offset: reader.offset,
                                                 needed: "\(arcs) arcs of state \(state)")
            }
            var previous = Int32.min
            for _ in 0..<Int(arcs) {
                let input = try reader.int32()
                let output = try reader.int32()
                let weight = try reader.float()
                let target = try reader.int32()
                guard target >= 0, Int64(target) < stateCount else {
                    throw WeightedFSTError.corrupt(path: name, problem: "state \(state) has an arc to state \(target), "
                                                   + "but there are \(stateCount) states")
                }
                guard input >= 0, output >= 0 else {
                    throw WeightedFSTError.corrupt(path: name, problem: "state \(state) has a negative label")
                }
                if input < previous { sorted = false }
                previous = input
                inputLabels.append(input)
                outputLabels.append(output)
                weights.append(weight)
                targets.append(target)
            }
            guard targets.count < Int(Int32.max) else {
                throw WeightedFSTError.unsupported(path: name, feature: "more than 2^31 arcs")
            }
            arcStart[state + 1] = Int32(targets.count)
        }
        if reader.remaining != 0 {
            throw WeightedFSTError.corrupt(path: name, problem: "\(reader.remaining) bytes after the last state")
        }
        self.name = name
        self.start = Int32(start)
        self.finals = finals
        self.arcStart = arcStart
        self.inputLabels = inputLabels
        self.outputLabels = outputLabels
        self.weights = weights
        self.targets = targets
        self.inputLabelSorted = sorted
    }
}

/// Reads the little-endian fields of an OpenFst file, failing with the file's name and the offset
/// where the data ran out.
struct FSTFileReader {
    let data: Data
    let name: String
    private(set) var offset = 0

    init(data: Data, name: String) {
        self.data = data
        self.name = name
    }

    var remaining: Int { data.count - offset }

    private mutating func take<T: FixedWidthInteger>(_: T.Type, what: String) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else {
            throw WeightedFSTError.truncated(path: name, offset: offset, needed: what)
        }
        let value = data.withUnsafeBytes { raw in
            raw.loadUnaligned(fromByteOffset: offset, as: T.self)
        }
        offset += size
        return T(littleEndian: value)
    }

    mutating func int32() throws -> Int32 { try take(Int32.self, what: "a 4-byte integer") }
    mutating func int64() throws -> Int64 { try take(Int64.self, what: "an 8-byte integer") }
    mutating func uint64() throws -> UInt64 { try take(UInt64.self, what: "an 8-byte integer") }
    mutating func float() throws -> Float { Float(bitPattern: try take(UInt32.self, what: "a 4-byte weight")) }

    /// An OpenFst string: a 4-byte length, then that many bytes.
    mutating func string() throws -> String {
        let length = Int(try int32())
        guard length >= 0, length <= remaining else {
            throw WeightedFSTError.truncated(path: name, offset: offset, needed: "a string of \(length) bytes")
        }
        let start = data.index(data.startIndex, offsetBy: offset)
        let bytes = data[start..<data.index(start, offsetBy: length)]
        offset += length
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Steps over an embedded symbol table (magic, name, available key, then size pairs of symbol and key).
    mutating func skipSymbolTable() throws {
        guard try int32() == WeightedFST.symbolTableMagic else {
            throw WeightedFSTError.corrupt(path: name, problem: "the header announces a symbol table that is not there")
        }
        _ = try string()
        _ = try int64()
        let size = try int64()
        guard size >= 0, size <= Int64(remaining / 12) else {
            throw WeightedFSTError.truncated(path: name, offset: offset, needed: "a symbol table of \(size) entries")
        }
        for _ in 0..<Int(size) {
            _ = try string()
            _ = try int64()
        }
    }
}
