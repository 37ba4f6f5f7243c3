import Foundation

/// A SentencePiece tokenizer read from a `.model` file, exact against the `sentencepiece` library:
/// its normaliser, unigram (Viterbi) or BPE (score-ordered merges) segmentation, byte fallback,
/// and its decoding rules.
public struct SentencePieceTokenizer: TextTokenizer {
    /// The model as read from the file.
    public let model: SentencePieceModel
    private let normalizer: SentencePieceNormalizer
    /// Ids of normal, user-defined and unused pieces, by their bytes.
    private let pieces: ByteTrie
    /// Ids of every piece by text, reserved ones included.
    private let ids: [String: Int]
    private let byteIDs: [Int?]
    private let unknownScore: Float

    /// Loads a `.model` file.
    public init(contentsOf url: URL) throws {
        try self.init(model: SentencePieceModel(contentsOf: url), source: url.path)
    }

    /// A tokenizer for a parsed model; `source` names it in errors.
    public init(model: SentencePieceModel, source: String = ".model data") throws {
        guard model.algorithm == .unigram || model.algorithm == .bpe else {
            throw TokenizerError.unsupported(path: source, feature: "SentencePiece model type \(model.algorithm)")
        }
        self.model = model
        var pieces = ByteTrie()
        var userDefined = ByteTrie()
        var ids: [String: Int] = [:]
        var minimumScore = Float.greatestFiniteMagnitude
        for (id, piece) in model.pieces.enumerated() {
            guard piece.score.isFinite else {
                throw TokenizerError.malformedFile(path: source, reason: "piece \(id) has score \(piece.score)")
            }
            guard ids.updateValue(id, forKey: piece.text) == nil else {
                throw TokenizerError.malformedFile(path: source, reason: "piece \(piece.text.debugDescription) is defined twice")
            }
            switch piece.type {
            case .normal:
                minimumScore = min(minimumScore, piece.score)
                pieces.insert(piece.text.utf8, value: id)
            case .userDefined:
                pieces.insert(piece.text.utf8, value: id)
                userDefined.insert(piece.text.utf8, value: id)
            case .unused:
                pieces.insert(piece.text.utf8, value: id)
            case .unknown, .control, .byte:
                break
            }
        }
        self.pieces = pieces
        self.ids = ids
        self.unknownScore = minimumScore - 10
        self.byteIDs = (0..<256).map { ids[Self.bytePiece(UInt8($0))] }
        if model.byteFallback, let missing = byteIDs.firstIndex(of: nil) {
            throw TokenizerError.malformedFile(
                path: source, reason: "byte_fallback is on but piece \(Self.bytePiece(UInt8(missing))) is missing")
        }
        self.normalizer = try SentencePieceNormalizer(model: model, userDefined: userDefined, source: source)
    }

    private static func bytePiece(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "<0x" + (hex.count == 1 ? "0" + hex : hex) + ">"
    }

    public var vocabularySize: Int { model.pieces.count }

    public func id(of token: String) -> Int? { ids[token] }

    public func token(of id: Int) -> String? {
        model.pieces.indices.contains(id) ? model.pieces[id].text : nil
    }

    /// The normalised form of `text` that segmentation runs on (spaces shown as `▁`).
    public func normalize(_ text: String) -> String {
        var text = text
        return String(decoding: text.withUTF8 { normalizer.normalize($0) }, as: UTF8.self)
    }

    // MARK: - Encoding

    public func encode(_ text: String) throws -> [Int] {
        var text = text
        let normalized = text.withUTF8 { normalizer.normalize($0) }
        if normalized.isEmpty { return [] }
        let segments = normalized.withUnsafeBufferPointer { bytes in
            model.algorithm == .bpe ? segmentBPE(bytes) : segmentUnigram(bytes)
        }
        // As sentencepiece reports pieces: runs of unknown pieces become one unknown id, or with
        // byte fallback each of their bytes a byte piece.
        var output: [Int] = []
        output.reserveCapacity(segments.count)
        var previousWasUnknown = false
        for segment in segments {
            let isUnknown = segment.id == model.unknownID
            if isUnknown, model.byteFallback {
                for byte in normalized[segment.range] { output.append(byteIDs[Int(byte)]!) }
            } else if !(isUnknown && previousWasUnknown) {
                output.append(segment.id)
            }
            previousWasUnknown = isUnknown
        }
        return output
    }

    private struct Segment {
        var range: Range<Int>
        var id: Int
    }

    private func isUserDefined(_ id: Int) -> Bool { model.pieces[id].type == .userDefined }

    /// Viterbi over all pieces that match, as `sentencepiece`'s `EncodeOptimized`, float for float.
    private func segmentUnigram(_ bytes: UnsafeBufferPointer<UInt8>) -> [Segment] {
        struct Node {
            var id = -1
            var score: Float = 0
            var start = -1
        }
        let size = bytes.count
        var best = [Node](repeating: Node(), count: size + 1)
        var start = 0
        var frontier = 0
        while start < size {
            var scoreHere = best[start].score
            // sentencepiece rebases scores that drift far from zero; the same arithmetic keeps ties equal.
            if scoreHere < -100_000 || scoreHere > 100_000 {
                let offset = scoreHere
                for index in start...max(start, frontier) where index == start || best[index].start != -1 {
                    best[index].score -= offset
                }
                scoreHere = 0
            }
            let characterLength = min(Self.characterLength(bytes[start]), size - start)
            var hasSingleCharacter = false
            pieces.prefixes(of: bytes, from: start) { id, length in
                if model.pieces[id].type == .unused { return }
                let end = start + length
                frontier = max(frontier, end)
                let score = isUserDefined(id) ? Float(0.1 * Double(length - 1)) : model.pieces[id].score
                let candidate = score + scoreHere
                if best[end].start == -1 || candidate > best[end].score {
                    best[end] = Node(id: id, score: candidate, start: start)
                }
                if length == characterLength { hasSingleCharacter = true }
            }
            if !hasSingleCharacter {
                let end = start + characterLength
                frontier = max(frontier, end)
                let candidate = unknownScore + scoreHere
                if best[end].start == -1 || candidate > best[end].score {
                    best[end] = Node(id: model.unknownID, score: candidate, start: start)
                }
            }
            start += characterLength
        }
        var segments: [Segment] = []
        var end = size
        while end > 0 {
            let node = best[end]
            segments.append(Segment(range: node.start..<end, id: node.id))
            end = node.start
        }
        return segments.reversed()
    }

    /// `sentencepiece`'s BPE: merge the adjacent pair that makes the highest-scoring piece, leftmost
    /// first among equals, then split pieces of type unused back into what made them.
    private func segmentBPE(_ bytes: UnsafeBufferPointer<UInt8>) -> [Segment] {
        struct Symbol {
            var range: Range<Int>
            var previous: Int
            var next: Int
            var frozen: Bool
        }
        var symbols: [Symbol] = []
        var position = 0
        while position < bytes.count {
            var length = min(Self.characterLength(bytes[position]), bytes.count - position)
            var frozen = false
            if let match = normalizerUserDefinedMatch(bytes, at: position) {
                length = match
                frozen = true
            }
            symbols.append(Symbol(
                range: position..<(position + length), previous: symbols.count - 1,
                next: position + length < bytes.count ? symbols.count + 1 : -1, frozen: frozen))
            position += length
        }

        struct Candidate: Comparable {
            var score: Float
            var left: Int
            var right: Int
            var size: Int
            // Higher score first, then the leftmost.
            static func < (a: Candidate, b: Candidate) -> Bool {
                a.score != b.score ? a.score > b.score : a.left < b.left
            }
        }
        var queue = MinHeap<Candidate>()
        var unmerged: [Range<Int>: (Range<Int>, Range<Int>)] = [:]
        func consider(_ left: Int, _ right: Int) {
            guard left >= 0, right >= 0, !symbols[left].frozen, !symbols[right].frozen else { return }
            let range = symbols[left].range.lowerBound..<symbols[right].range.upperBound
            guard let id = pieces.value(of: UnsafeBufferPointer(rebasing: bytes[range])) else { return }
            queue.push(Candidate(score: model.pieces[id].score, left: left, right: right, size: range.count))
            if model.pieces[id].type == .unused { unmerged[range] = (symbols[left].range, symbols[right].range) }
        }
        for index in 0..<max(symbols.count - 1, 0) { consider(index, index + 1) }
        while let top = queue.pop() {
            let left = symbols[top.left]
            let right = symbols[top.right]
            guard !left.range.isEmpty, !right.range.isEmpty, left.range.count + right.range.count == top.size else {
                continue
            }
            symbols[top.left].range = left.range.lowerBound..<right.range.upperBound
            symbols[top.left].next = right.next
            if right.next >= 0 { symbols[right.next].previous = top.left }
            symbols[top.right].range = right.range.lowerBound..<right.range.lowerBound
            consider(symbols[top.left].previous, top.left)
            consider(top.left, symbols[top.left].next)
        }

        var segments: [Segment] = []
        func resegment(_ range: Range<Int>, depth: Int) {
            let id = pieces.value(of: UnsafeBufferPointer(rebasing: bytes[range]))
            guard let id else {
                segments.append(Segment(range: range, id: model.unknownID))
                return
            }
            if depth > 100 || model.pieces[id].type != .unused {
                segments.append(Segment(range: range, id: id))
                return
            }
            guard let (first, second) = unmerged[range] else {
                segments.append(Segment(range: range, id: model.unknownID))
                return
            }
            resegment(first, depth: depth + 1)
            resegment(second, depth: depth + 1)
        }
        var index = symbols.isEmpty ? -1 : 0
        while index != -1 {
            resegment(symbols[index].range, depth: 0)
            index = symbols[index].next
        }
        return segments
    }

    private func normalizerUserDefinedMatch(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int? {
        var longest: Int? = nil
        pieces.prefixes(of: bytes, from: position) { id, length in
            if model.pieces[id].type == .userDefined { longest = length }
        }
        return longest
    }

    /// sentencepiece's character length from a lead byte (continuation bytes count as one).
    private static func characterLength(_ lead: UInt8) -> Int {
        switch lead >> 4 {
        case 0xC, 0xD: return 2
        case 0xE: return 3
        case 0xF: return 4
        default: return 1
        }
    }

    // MARK: - Decoding

    /// The text of `ids` as `sentencepiece` decodes it: control pieces (`<s>`, `</s>`) always leave
    /// no text, whatever `skipsSpecialTokens` says; byte pieces join into UTF-8.
    public func decode(_ ids: [Int], skipsSpecialTokens: Bool) throws -> String {
        var output: [UInt8] = []
        var pendingBytes: [UInt8] = []
        var atStart = true
        let mayStartWithSpace = model.addsDummyPrefix || model.removesExtraWhitespace
        func flushBytes() {
            var offset = 0
            pendingBytes.withUnsafeBufferPointer { bytes in
                while offset < bytes.count {
                    let length = UTF8Validation.validLength(UnsafeBufferPointer(rebasing: bytes[offset...]))
                    if length == 0 {
                        output.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        offset += 1
                    } else {
                        output.append(contentsOf: bytes[offset..<(offset + length)])
                        offset += length
                    }
                }
            }
            pendingBytes.removeAll(keepingCapacity: true)
        }
        for id in ids {
            guard model.pieces.indices.contains(id) else { throw TokenizerError.unknownID(id) }
            let piece = model.pieces[id]
            if piece.type == .byte {
                guard let byte = UInt8(piece.text.dropFirst(3).dropLast(), radix: 16) else {
                    throw TokenizerError.malformedFile(path: "model", reason: "byte piece \(piece.text) has no hex value")
                }
                pendingBytes.append(byte)
                continue
            }
            flushBytes()
            if !output.isEmpty { atStart = false }
            if piece.type == .control { continue }
            var text = Substring(piece.text)
            var hadLeadingSpace = false
            if atStart, mayStartWithSpace, text.hasPrefix("\u{2581}") {
                text = text.dropFirst()
                hadLeadingSpace = !model.removesExtraWhitespace
            }
            if piece.type == .unknown {
                output.append(contentsOf: model.unknownSurface.utf8)
            } else {
                for character in text.unicodeScalars {
                    if character == "\u{2581}" { output.append(0x20) } else { output.append(contentsOf: String(character).utf8) }
                }
            }
            if hadLeadingSpace || !output.isEmpty { atStart = false }
        }
        flushBytes()
        return String(decoding: output, as: UTF8.self)
    }
}
