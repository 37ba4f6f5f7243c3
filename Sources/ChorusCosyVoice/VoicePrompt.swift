import Foundation

/// A cloned voice: what CosyVoice needs from a 2-6 s reference clip, stored as the seed app's voice folder.
///
/// | file | content |
/// |---|---|
/// | `speaker_embedding.bin` | 192 float32, little-endian (CAMPPlus) |
/// | `prompt_tokens.bin` | N int64, little-endian (speech tokenizer v3, 25 Hz) |
/// | `prompt_mel.bin` | int32 frame count, then frames x 80 float32 (frame-major, 24 kHz Matcha mel, 50 Hz) |
/// | `prompt_text.txt` | the clip's exact transcript, UTF-8 |
public struct VoicePrompt: Sendable, Equatable {
    /// Length of the speaker embedding.
    public static let embeddingSize = 192
    /// The speech tokenizer v3's codes (its 3^8 codebook); the LLM reads nothing else as prompt speech.
    public static let speechTokenRange = 0..<6561
    /// Mel values of real speech are log magnitudes far inside this; beyond it a file is corrupt.
    static let melRange: ClosedRange<Float> = -100...100
    /// The four files of a voice folder.
    public enum File: String, CaseIterable, Sendable {
        case speakerEmbedding = "speaker_embedding.bin"
        case promptTokens = "prompt_tokens.bin"
        case promptMel = "prompt_mel.bin"
        case promptText = "prompt_text.txt"
    }

    /// The CAMPPlus speaker embedding (not normalised; the flow normalises it).
    public var speakerEmbedding: [Float]
    /// The clip's speech tokens.
    public var speechTokens: [Int]
    /// The clip's mel, frame-major: `mel[frame * 80 + bin]`.
    public var mel: [Float]
    /// What the clip says, exactly.
    public var text: String

    /// Mel frames held.
    public var melFrames: Int { mel.count / MelSpectrogram.bins }
    /// Length of the clip in seconds, from its tokens (25 per second).
    public var duration: Double { Double(speechTokens.count) / 25 }

    public init(speakerEmbedding: [Float], speechTokens: [Int], mel: [Float], text: String) {
        self.speakerEmbedding = speakerEmbedding
        self.speechTokens = speechTokens
        self.mel = mel
        self.text = text
    }

    /// Reads the voice folder at `folder`.
    public init(contentsOf folder: URL) throws {
        func data(_ file: File) throws -> Data {
            let url = folder.appendingPathComponent(file.rawValue)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CosyVoiceError.invalidVoice(folder: folder.path, problem: "\(file.rawValue) is missing or unreadable")
            }
            return data
        }
        let embedding = try data(.speakerEmbedding)
        guard embedding.count == Self.embeddingSize * 4 else {
            throw CosyVoiceError.invalidVoice(
                folder: folder.path,
                problem: "speaker_embedding.bin has \(embedding.count) bytes, expected \(Self.embeddingSize * 4)")
        }
        let tokens = try data(.promptTokens)
        guard tokens.count % 8 == 0, !tokens.isEmpty else {
            throw CosyVoiceError.invalidVoice(folder: folder.path,
                                              problem: "prompt_tokens.bin has \(tokens.count) bytes, not a whole number of int64")
        }
        let melData = try data(.promptMel)
        guard melData.count >= 4 else {
            throw CosyVoiceError.invalidVoice(folder: folder.path, problem: "prompt_mel.bin is shorter than its header")
        }
        let frames = Int(Int32(littleEndian: melData.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        guard frames > 0, melData.count == 4 + frames * MelSpectrogram.bins * 4 else {
            throw CosyVoiceError.invalidVoice(
                folder: folder.path,
                problem: "prompt_mel.bin declares \(frames) frames but holds \(melData.count - 4) bytes of values")
        }
        // An empty transcript is a voice made without one: it speaks only cross-lingually.
        guard let text = String(data: try data(.promptText), encoding: .utf8) else {
            throw CosyVoiceError.invalidVoice(folder: folder.path, problem: "prompt_text.txt is not UTF-8")
        }
        let tokenValues = Self.int64s(tokens)
        if let bad = tokenValues.firstIndex(where: { !(Int64(Self.speechTokenRange.lowerBound)..<Int64(Self.speechTokenRange.upperBound)).contains($0) }) {
            throw CosyVoiceError.invalidVoice(folder: folder.path, problem: "prompt_tokens.bin holds \(tokenValues[bad]) at "
                                              + "position \(bad), outside the speech tokens 0-\(Self.speechTokenRange.upperBound - 1)")
        }
        self.init(speakerEmbedding: Self.floats(embedding),
                  speechTokens: tokenValues.map { Int($0) },
                  mel: Self.floats(melData.dropFirst(4)),
                  text: text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let problem = valueProblem { throw CosyVoiceError.invalidVoice(folder: folder.path, problem: problem) }
    }

    /// What is wrong with the prompt's values, if anything: a NaN or infinite embedding or mel value (which
    /// makes silent audio), a mel value far outside speech, a token outside the speech tokens (which the LLM
    /// reads as something else, making many times too much audio), or no tokens or mel at all.
    public var valueProblem: String? {
        if speakerEmbedding.count != Self.embeddingSize {
            return "the speaker embedding has \(speakerEmbedding.count) values, expected \(Self.embeddingSize)"
        }
        if let bad = speakerEmbedding.firstIndex(where: { !$0.isFinite }) {
            return "speaker embedding value \(bad) is \(speakerEmbedding[bad]), not a finite number"
        }
        if speakerEmbedding.allSatisfy({ $0 == 0 }) { return "the speaker embedding is all zeros" }
        if speechTokens.isEmpty { return "it has no prompt tokens" }
        if let bad = speechTokens.firstIndex(where: { !Self.speechTokenRange.contains($0) }) {
            return "prompt token \(bad) is \(speechTokens[bad]), outside the speech tokens 0-\(Self.speechTokenRange.upperBound - 1)"
        }
        if mel.isEmpty || mel.count % MelSpectrogram.bins != 0 {
            return "the prompt mel has \(mel.count) values, not whole frames of \(MelSpectrogram.bins)"
        }
        if let bad = mel.firstIndex(where: { !Self.melRange.contains($0) }) {
            return "prompt mel value \(bad) is \(mel[bad]), " + (mel[bad].isFinite ? "far outside speech" : "not a finite number")
        }
        return nil
    }

    /// Writes the four files into `folder`, creating it when needed.
    public func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func bytes<T>(_ values: [T]) -> Data { values.withUnsafeBufferPointer { Data(buffer: $0) } }
        try bytes(speakerEmbedding.map { $0.bitPattern.littleEndian })
            .write(to: folder.appendingPathComponent(File.speakerEmbedding.rawValue))
        try bytes(speechTokens.map { Int64($0).littleEndian })
            .write(to: folder.appendingPathComponent(File.promptTokens.rawValue))
        try (bytes([Int32(melFrames).littleEndian]) + bytes(mel.map { $0.bitPattern.littleEndian }))
            .write(to: folder.appendingPathComponent(File.promptMel.rawValue))
        try Data(text.utf8).write(to: folder.appendingPathComponent(File.promptText.rawValue))
    }

    /// The prompt with mel and tokens made to agree, as upstream's front end does: tokens =
    /// min(mel frames / 2, tokens), mel frames = 2 x tokens.
    public func aligned() -> VoicePrompt {
        let tokens = min(melFrames / FlowMatching.tokenMelRatio, speechTokens.count)
        var copy = self
        copy.speechTokens = Array(speechTokens.prefix(tokens))
        copy.mel = Array(mel.prefix(tokens * FlowMatching.tokenMelRatio * MelSpectrogram.bins))
        return copy
    }

    private static func floats<D: DataProtocol>(_ data: D) -> [Float] {
        let raw = [UInt8](data)
        return stride(from: 0, to: raw.count - 3, by: 4).map { offset in
            let bits = UInt32(raw[offset]) | UInt32(raw[offset + 1]) << 8 | UInt32(raw[offset + 2]) << 16
                | UInt32(raw[offset + 3]) << 24
            return Float(bitPattern: bits)
        }
    }

    private static func int64s(_ data: Data) -> [Int64] {
        let raw = [UInt8](data)
        return stride(from: 0, to: raw.count - 7, by: 8).map { offset in
            var bits: UInt64 = 0
            for byte in 0..<8 { bits |= UInt64(raw[offset + byte]) << (8 * byte) }
            return Int64(bitPattern: bits)
        }
    }
}
