import Foundation

/// The contents of a SentencePiece `.model` file (a `sentencepiece.ModelProto`): pieces with their
/// scores and types, the trainer settings that matter at run time, and the normaliser settings.
public struct SentencePieceModel: Sendable {
    /// What a piece is for.
    public enum PieceType: Int, Sendable {
        case normal = 1, unknown = 2, control = 3, userDefined = 4, unused = 5, byte = 6
    }

    /// How pieces are chosen.
    public enum Algorithm: Int, Sendable {
        case unigram = 1, bpe = 2, word = 3, character = 4
    }

    /// One vocabulary entry.
    public struct Piece: Sendable, Equatable {
        public var text: String
        public var score: Float
        public var type: PieceType
    }

    /// The vocabulary, by id.
    public var pieces: [Piece] = []
    /// The segmentation algorithm.
    public var algorithm: Algorithm = .unigram
    /// Whether characters outside the vocabulary become `<0xXX>` byte pieces instead of the unknown id.
    public var byteFallback = false
    /// The unknown piece's id.
    public var unknownID = 0
    /// What decoding prints for an unknown piece.
    public var unknownSurface = " \u{2047} "
    /// Whether the word-boundary mark goes after words instead of before.
    public var treatsWhitespaceAsSuffix = false
    /// The normaliser's name (`nmt_nfkc`, `nfkc`, `identity`, ...), for information.
    public var normalizerName = ""
    /// The normaliser's compiled rules: a double-array trie and the replacement strings.
    public var precompiledCharsMap: [UInt8] = []
    /// Whether a word-boundary mark is put in front of the text.
    public var addsDummyPrefix = true
    /// Whether leading, trailing and repeated spaces are removed.
    public var removesExtraWhitespace = true
    /// Whether spaces become U+2581 (`▁`).
    public var escapesWhitespace = true

    /// Reads a `.model` file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TokenizerError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        try self.init(serialized: [UInt8](data), source: url.path)
    }

    /// Parses the bytes of a `.model` file; `source` names it in errors.
    public init(serialized bytes: [UInt8], source: String = ".model data") throws {
        var reader = ProtobufReader(bytes: bytes[...], source: source)
        var sawTrainer = false
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .bytes(let piece)):
                pieces.append(try Self.piece(piece, index: pieces.count, source: source))
            case (2, .bytes(let trainer)):
                try readTrainer(trainer, source: source)
                sawTrainer = true
            case (3, .bytes(let normalizer)):
                try readNormalizer(normalizer, source: source)
            case (5, .bytes(let denormalizer)):
                // A denormaliser rewrites decoded text; none of the models we know use one.
                var spec = ProtobufReader(bytes: denormalizer, source: source)
                while let (field, value) = try spec.next() {
                    if field == 2, case .bytes(let map) = value, !map.isEmpty {
                        throw TokenizerError.unsupported(path: source, feature: "a denormalizer_spec with rules")
                    }
                }
            default:
                break
            }
        }
        guard !pieces.isEmpty else {
            throw TokenizerError.malformedFile(path: source, reason: "it holds no pieces; is it a SentencePiece .model file?")
        }
        guard sawTrainer else {
            throw TokenizerError.malformedFile(path: source, reason: "it has no trainer_spec")
        }
        guard pieces.indices.contains(unknownID), pieces[unknownID].type == .unknown else {
            throw TokenizerError.malformedFile(path: source, reason: "unk_id \(unknownID) is not an unknown piece")
        }
    }

    private static func piece(_ bytes: ArraySlice<UInt8>, index: Int, source: String) throws -> Piece {
        var reader = ProtobufReader(bytes: bytes, source: source)
        var piece = Piece(text: "", score: 0, type: .normal)
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .bytes(let text)):
                guard let string = String(bytes: text, encoding: .utf8) else {
                    throw TokenizerError.malformedFile(path: source, reason: "piece \(index) is not UTF-8")
                }
                piece.text = string
            case (2, .fixed32(let bits)):
                piece.score = Float(bitPattern: bits)
            case (3, .varint(let raw)):
                guard let type = PieceType(rawValue: Int(raw)) else {
                    throw TokenizerError.malformedFile(path: source, reason: "piece \(index) has unknown type \(raw)")
                }
                piece.type = type
            default:
                break
            }
        }
        guard !piece.text.isEmpty else {
            throw TokenizerError.malformedFile(path: source, reason: "piece \(index) is empty")
        }
        return piece
    }

    private mutating func readTrainer(_ bytes: ArraySlice<UInt8>, source: String) throws {
        var reader = ProtobufReader(bytes: bytes, source: source)
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (3, .varint(let raw)):
                guard let algorithm = Algorithm(rawValue: Int(raw)) else {
                    throw TokenizerError.malformedFile(path: source, reason: "unknown model_type \(raw)")
                }
                self.algorithm = algorithm
            case (24, .varint(let flag)): treatsWhitespaceAsSuffix = flag != 0
            case (35, .varint(let flag)): byteFallback = flag != 0
            case (40, .varint(let raw)): unknownID = Int(Int32(truncatingIfNeeded: raw))
            case (44, .bytes(let text)): unknownSurface = String(decoding: text, as: UTF8.self)
            default: break
            }
        }
    }

    private mutating func readNormalizer(_ bytes: ArraySlice<UInt8>, source: String) throws {
        var reader = ProtobufReader(bytes: bytes, source: source)
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .bytes(let name)): normalizerName = String(decoding: name, as: UTF8.self)
            case (2, .bytes(let map)): precompiledCharsMap = Array(map)
            case (3, .varint(let flag)): addsDummyPrefix = flag != 0
            case (4, .varint(let flag)): removesExtraWhitespace = flag != 0
            case (5, .varint(let flag)): escapesWhitespace = flag != 0
            default: break
            }
        }
    }
}

/// Reads protobuf wire format: just enough for `sentencepiece.ModelProto`.
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed32(UInt32)
    }

    private var bytes: ArraySlice<UInt8>
    private let source: String

    init(bytes: ArraySlice<UInt8>, source: String) {
        self.bytes = bytes
        self.source = source
    }

    private func broken(_ reason: String) -> TokenizerError {
        TokenizerError.malformedFile(path: source, reason: "broken protobuf (\(reason)); is it a SentencePiece .model file?")
    }

    private mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift >= 64 { throw broken("a varint is longer than 10 bytes") }
        }
        throw broken("the data ends inside a varint")
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count else { throw broken("a field runs past the end of the data") }
        let part = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return part
    }

    /// The next field number and value, or nil at the end.
    mutating func next() throws -> (Int, Value)? {
        if bytes.isEmpty { return nil }
        let key = try varint()
        let field = Int(key >> 3)
        guard field > 0 else { throw broken("field number 0") }
        switch key & 7 {
        case 0:
            return (field, .varint(try varint()))
        case 1:
            let raw = try take(8)
            return (field, .fixed64(raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }))
        case 2:
            let length = try varint()
            guard length <= UInt64(Int.max) else { throw broken("a length is too large") }
            return (field, .bytes(try take(Int(length))))
        case 5:
            let raw = try take(4)
            return (field, .fixed32(raw.reversed().reduce(0) { $0 << 8 | UInt32($1) }))
        case let wire:
            throw broken("unsupported wire type \(wire) for field \(field)")
        }
    }
}
