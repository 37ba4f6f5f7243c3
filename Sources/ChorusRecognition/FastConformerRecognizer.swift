import ChorusDSP
import ChorusModels
import Foundation
import ChorusONNX
import ChorusText
import ChorusVAD

/// What the recogniser heard in one piece of audio.
public struct Recognition: Sendable, Equatable {
    /// The transcript.
    public var text: String
    /// The token ids behind it, repeats collapsed and blanks dropped.
    public var tokens: [Int]
    /// The second head's reading (for example phones), when the model has one.
    public var pronunciation: String?

    public init(text: String, tokens: [Int], pronunciation: String? = nil) {
        self.text = text
        self.tokens = tokens
        self.pronunciation = pronunciation
    }
}

/// An offline FastConformer CTC recogniser: 16 kHz audio -> NeMo features -> CTC head -> greedy CTC
/// -> SentencePiece text, with an optional second CTC head over the same features.
///
/// A model folder holds:
/// - `encoder.onnx` (any length) or `encoder_T<frames>.onnx`, one per length bucket, all taking
///   `[1, 80, frames]` features and giving `[1, frames / 8, vocabulary + 1]` log-probabilities, blank last;
/// - `tokenizer.model`, the SentencePiece model of the vocabulary, or `tokens.txt` (`piece id` per
///   line, as NeMo and sherpa-onnx exports ship it);
/// - optionally `pronunciation.onnx` or `pronunciation_T<frames>.onnx` with `pronunciation_vocab.txt`.
public struct FastConformerRecognizer: ChunkTranscribing {
    /// NeMo features are made from 16 kHz audio.
    public let sampleRate = 16_000
    /// The transcript head.
    public let encoder: CTCHead
    /// Decodes the transcript head's tokens.
    public let tokenizer: any TokenDecoding
    /// The second head and its symbols.
    public let pronunciation: (head: CTCHead, vocabulary: SymbolVocabulary)?
    /// The features the heads read.
    public let features: NeMoFilterbank

    /// Samples per feature frame.
    static let hop = 160

    /// Uses the heads and vocabularies given.
    public init(encoder: CTCHead, tokenizer: any TokenDecoding,
                pronunciation: (head: CTCHead, vocabulary: SymbolVocabulary)? = nil,
                features: NeMoFilterbank = NeMoFilterbank(melCount: 80)) {
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.pronunciation = pronunciation
        self.features = features
    }

    /// Loads the model in `folder`; `tokenizer` replaces the folder's `tokenizer.model` when given.
    public init(folder: URL, tokenizer: (any TokenDecoding)? = nil, options: SessionOptions = SessionOptions(),
                cache: SessionCache = SessionCache()) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw Self.manifest.missing(folder.path)
        }
        guard let encoder = CTCHead.find(stem: "encoder", in: folder, options: options, cache: cache) else {
            throw Self.manifest.missing(folder.appendingPathComponent("encoder.onnx (or encoder_T<frames>.onnx per bucket)").path)
        }
        guard let tokenizer = try tokenizer ?? Self.loadTokenizer(in: folder) else {
            throw Self.manifest.missing(folder.appendingPathComponent("tokens.txt or tokenizer.model").path)
        }
        var pronunciation: (head: CTCHead, vocabulary: SymbolVocabulary)?
        if let head = CTCHead.find(stem: "pronunciation", in: folder, options: options, cache: cache) {
            let vocabulary = folder.appendingPathComponent("pronunciation_vocab.txt")
            guard FileManager.default.fileExists(atPath: vocabulary.path) else {
                throw ModelError.missingFile(model: Self.manifest.name, path: vocabulary.path,
                                             remedy: "The pronunciation head needs its symbols, one per line.")
            }
            pronunciation = (head, try SymbolVocabulary(contentsOf: vocabulary))
        }
        self.init(encoder: encoder, tokenizer: tokenizer, pronunciation: pronunciation)
    }

    /// The folder's vocabulary, the SentencePiece model first; `nil` when it has none.
    static func loadTokenizer(in folder: URL) throws -> (any TokenDecoding)? {
        let model = folder.appendingPathComponent("tokenizer.model")
        if FileManager.default.fileExists(atPath: model.path) { return try SentencePieceVocabulary(contentsOf: model) }
        let tokens = folder.appendingPathComponent("tokens.txt")
        if FileManager.default.fileExists(atPath: tokens.path) { return try PieceVocabulary(contentsOf: tokens) }
        return nil
    }

    /// Audio one call takes: every sample up to the largest bucket's valid frames (`samples / 160`), or
    /// for a free-length encoder up to `longestFreeLengthCall` frames.
    public var maximumChunkSamples: Int? {
        ((encoder.maximumFrames ?? Self.longestFreeLengthCall) + 1) * Self.hop - 1
    }

    /// The most feature frames one call of a free-length encoder is given: 48 s, as the largest bucket
    /// of the seed's export, so longer audio is cut and merged as it is for buckets. Self-attention
    /// holds (frames / 8)^2 scores per head, so a whole recording in one call would take memory growing
    /// with the square of its length.
    public static let longestFreeLengthCall = 4800

    /// What is said in `samples` (16 kHz) of any length. Audio longer than one call is cut as
    /// `ChunkPlanner` plans (at the pauses between `speech` segments where possible) and both heads'
    /// texts are merged word by word; `tokens` are the ids of the words kept, or empty in the rare
    /// case that a chunk's ids do not decode word for word to its text.
    public func recognize(
        _ samples: [Float], speech: [SpeechSegment] = [], overlapSeconds: Double = 2,
        merger: TranscriptMerger = TranscriptMerger()
    ) async throws -> Recognition {
        guard let maximum = maximumChunkSamples, samples.count > maximum else { return try await recognize(chunk: samples) }
        let planner = ChunkPlanner(maximumSamples: maximum,
                                   overlapSamples: min(Int(overlapSeconds * Double(sampleRate)), maximum / 2 - 1))
        let overlap = Double(planner.overlapSamples) / Double(sampleRate)
        // Phones come several times faster than words: the pronunciation's shared run may be longer.
        let words = merger.maximumOverlapWords == nil ? merger.bounded(toOverlapSeconds: overlap) : merger
        var symbols = words
        symbols.maximumOverlapWords = words.maximumOverlapWords.map { $0 * 4 }
        var transcript = WordTranscript()
        var reading: String? = pronunciation == nil ? nil : ""
        for chunk in planner.chunks(sampleCount: samples.count, speech: speech) {
            let piece = try await recognize(chunk: Array(samples[chunk.samples]))
            transcript.append(WordTranscript(text: piece.text, ids: piece.tokens, vocabulary: tokenizer),
                              merger: chunk.overlapsPrevious ? words : nil)
            if let next = piece.pronunciation {
                let old = reading ?? ""
                reading = chunk.overlapsPrevious
                    ? symbols.merge(old, next) : [old, next].filter { !$0.isEmpty }.joined(separator: " ")
            }
        }
        return Recognition(text: transcript.text, tokens: transcript.ids, pronunciation: reading)
    }

    /// What is said in `samples` (16 kHz, at most `maximumChunkSamples`), in one call per head.
    ///
    /// Audio shorter than two feature frames (20 ms) holds no speech, and its features cannot be
    /// normalised (the deviation of one frame is undefined): it is heard as silence.
    public func recognize(chunk samples: [Float]) async throws -> Recognition {
        if let bad = samples.firstIndex(where: { !$0.isFinite }) { throw RecognitionError.nonFiniteSample(index: bad) }
        guard features.validFrames(for: samples.count) >= 2 else {
            return Recognition(text: "", tokens: [], pronunciation: pronunciation == nil ? nil : "")
        }
        let input = AcousticFeatures(features, samples: samples)
        let transcript = try await Self.decode(encoder, input, tokenizer)
        var reading: String?
        if let pronunciation {
            reading = try await Self.decode(pronunciation.head, input, pronunciation.vocabulary).text
        }
        return Recognition(text: transcript.text, tokens: transcript.tokens, pronunciation: reading)
    }

    public func transcribe(chunk samples: [Float]) async throws -> String {
        try await recognize(chunk: samples).text
    }

    public func transcribeWords(chunk samples: [Float]) async throws -> (text: String, wordTokens: [[Int]]?) {
        let result = try await recognize(chunk: samples)
        return (result.text, tokenizer.wordTokens(result.tokens, words: TranscriptMerger.words(result.text)))
    }

    private static func decode(_ head: CTCHead, _ features: AcousticFeatures, _ vocabulary: any TokenDecoding)
        async throws -> (text: String, tokens: [Int])
    {
        guard features.frames > 0 else { return ("", []) }
        let output = try await head.logProbabilities(for: features)
        guard output.classes == vocabulary.vocabularySize + 1 else {
            throw RecognitionError.vocabularyMismatch(
                model: head.modelPath(for: features.frames) ?? "the model", vocabulary: vocabulary.source,
                tokens: vocabulary.vocabularySize, classes: output.classes)
        }
        var decoder = CTCGreedyDecoder.blankLast(vocabularySize: vocabulary.vocabularySize)
        let tokens = decoder.decode(scores: output.values, classes: output.classes).map(\.id)
        return (try vocabulary.decode(tokens), tokens)
    }
}
