import Foundation

/// How much one call of Chatterbox's graphs holds, so that every chunk of text is cut to fit them before any
/// model runs (issue 31, item 9: on the generated models a chunk whose speech outgrew the decoder failed
/// mid-request, after the first audio had gone out).
///
/// Each limit is read from the graph's metadata where the graph states it (`metadataKeys`), else it is the
/// published export's as upstream's classes build it (`published`); the tokenizer's `model_max_length` limits
/// the text ids.
public struct ChatterboxCapacity: Sendable, Equatable {
    /// T3's positions: the voice's conditioning, the text ids and the draws of one generation together.
    public var positions: Int
    /// The speech tokens one conditional decoder call decodes: the voice's prompt tokens, the tokens drawn and
    /// the three of silence.
    public var decoderTokens: Int

    public init(positions: Int, decoderTokens: Int) {
        self.positions = positions
        self.decoderTokens = decoderTokens
    }

    /// The metadata keys (ONNX `metadata_props`) a graph states its limit under: `language_model.onnx` its
    /// positions, `conditional_decoder.onnx` its speech tokens. The generated test models carry them
    /// (scripts/testdata/chatterbox/stamp_capacity.py).
    public enum MetadataKey {
        public static let positions = "chorus.max_positions"
        public static let decoderTokens = "chorus.max_speech_tokens"
    }

    /// The published export's, as upstream's classes build it (chatterbox-tts 0.1.7, not read from the real
    /// files, which are not on this machine): GPT-2 medium's 8,196 learned positions (`GPT2_MEDIUM_CONFIG`),
    /// and S3Gen's relative positions for 5,000 mel frames (`EspnetRelPositionalEncoding`'s `max_len`), two
    /// frames a token. Upstream's longest call (10 s of prompt, 1,001 draws, 3 of silence: 1,254 tokens) fits.
    public static let published = ChatterboxCapacity(positions: 8_196, decoderTokens: 2_500)

    /// The capacity of the graphs in `folder`: each limit from its graph's metadata, else `published`'s.
    public init(folder: ChatterboxModelFolder) throws {
        func stated(_ key: String, in graph: String) throws -> Int? {
            let path = folder.path(graph)
            guard let value = try ONNXMetadata.value(of: key, inModelAt: path) else { return nil }
            guard let limit = Int(value), limit > 0 else {
                throw ChatterboxError.unexpectedModel(path: path, reason: "states \(key) as '\(value)', not a positive whole number")
            }
            return limit
        }
        let published = Self.published
        self.init(positions: try stated(MetadataKey.positions, in: ChatterboxModelFolder.languageModel) ?? published.positions,
                  decoderTokens: try stated(MetadataKey.decoderTokens, in: ChatterboxModelFolder.conditionalDecoder)
                      ?? published.decoderTokens)
    }

    /// The most draws one generation of `textIDs` ids in `voice` may make: upstream's `1 + max_gen_len`
    /// (`longest`), within T3's positions and what the decoder holds. Below 1 when nothing fits.
    public func draws(textIDs: Int, voice: VoiceConditioning, longest: Int) -> Int {
        min(longest, positions - voice.conditioningLength - textIDs, decoderRoom(voice))
    }

    /// The draws the decoder holds after `voice`'s prompt tokens and the three of silence.
    public func decoderRoom(_ voice: VoiceConditioning) -> Int {
        decoderTokens - voice.audioTokens.count - ConditionalDecoder.silenceTokens
    }

    /// upstream's decoder reference: the clip's first 10 s (`DEC_COND_LEN`), 25 tokens a second.
    public static let referenceTokens = 250

    /// The most prompt tokens a voice gives the decoder: upstream's 10 s, and never more than half of what the
    /// decoder holds besides the silence, so speech always has at least the room the prompt takes (on the
    /// published export 250, all of it; on a decoder of 160 tokens, 78, 3 s).
    public var promptTokens: Int { min(Self.referenceTokens, (decoderTokens - ConditionalDecoder.silenceTokens) / 2) }

    /// `voice` with its decoder prompt cut to its first `promptTokens` tokens and their mel frames (two a
    /// token, as upstream's `embed_ref` pairs them), as upstream cuts the reference clip to its first 10 s
    /// before the decoder sees it; a voice within the bound is returned as it is.
    public func fitted(_ voice: VoiceConditioning) -> VoiceConditioning {
        guard voice.audioTokens.count > promptTokens else { return voice }
        var fitted = voice
        fitted.audioTokens = Array(voice.audioTokens.prefix(promptTokens))
        fitted.promptFrames = min(voice.promptFrames, 2 * promptTokens)
        fitted.speakerFeatures = Array(voice.speakerFeatures.prefix(fitted.promptFrames * VoiceConditioning.melBins))
        return fitted
    }
}

/// Reads the `metadata_props` of an ONNX model file (`ModelProto` field 14, each a `StringStringEntryProto`
/// of key 1 and value 2) without reading the graph: the file is mapped and every other field skipped by its
/// length.
enum ONNXMetadata {
    /// The value stored under `key` in the model at `path`, or nil when it states none.
    static func value(of key: String, inModelAt path: String) throws -> String? {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw ChatterboxError.unexpectedModel(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        do {
            var reader = ProtobufReader(data[...])
            while let (field, wire) = try reader.key() {
                guard field == 14, wire == 2 else {
                    try reader.skip(wire)
                    continue
                }
                var entry = ProtobufReader(try reader.bytes())
                var (name, value): (String?, String?) = (nil, nil)
                while let (field, wire) = try entry.key() {
                    switch (field, wire) {
                    case (1, 2): name = String(decoding: try entry.bytes(), as: UTF8.self)
                    case (2, 2): value = String(decoding: try entry.bytes(), as: UTF8.self)
                    default: try entry.skip(wire)
                    }
                }
                if name == key { return value ?? "" }
            }
            return nil
        } catch {
            throw ChatterboxError.unexpectedModel(path: path, reason: "is not an ONNX model file (\(error))")
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Protocol buffers' wire format, as far as skipping fields needs it.
    struct ProtobufReader {
        var rest: Data.SubSequence

        init(_ bytes: Data.SubSequence) { rest = bytes }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard let byte = rest.popFirst() else { throw Malformed(description: "it ends inside a number") }
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte < 0x80 { return value }
            }
            throw Malformed(description: "a number runs past 10 bytes")
        }

        /// The next field's number and wire type, or nil at the end.
        mutating func key() throws -> (field: UInt64, wire: UInt64)? {
            guard !rest.isEmpty else { return nil }
            let key = try varint()
            return (key >> 3, key & 7)
        }

        mutating func bytes() throws -> Data.SubSequence {
            let length = try varint()
            guard length <= UInt64(rest.count) else { throw Malformed(description: "a field runs past the end") }
            let bytes = rest.prefix(Int(length))
            rest = rest.dropFirst(Int(length))
            return bytes
        }

        mutating func skip(_ wire: UInt64) throws {
            switch wire {
            case 0: _ = try varint()
            case 1, 5:
                let size = wire == 1 ? 8 : 4
                guard rest.count >= size else { throw Malformed(description: "a field runs past the end") }
                rest = rest.dropFirst(size)
            case 2: _ = try bytes()
            default: throw Malformed(description: "wire type \(wire) is not used by ONNX")
            }
        }
    }
}
