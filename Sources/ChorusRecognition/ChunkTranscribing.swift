/// Turns one piece of audio that fits a single model call into text: the stage that chunked
/// and live transcription drive, and that tests replace.
public protocol ChunkTranscribing: Sendable {
    /// The rate chunks must be at.
    var sampleRate: Int { get }
    /// The longest chunk one call takes, in samples; `nil` when any length fits.
    var maximumChunkSamples: Int? { get }
    /// The text spoken in `samples`.
    func transcribe(chunk samples: [Float]) async throws -> String
    /// The text spoken in `samples` with the token ids of each of its words (split at whitespace);
    /// `nil` ids when the recogniser has none or they do not line up with the words.
    func transcribeWords(chunk samples: [Float]) async throws -> (text: String, wordTokens: [[Int]]?)
}

extension ChunkTranscribing {
    public func transcribeWords(chunk samples: [Float]) async throws -> (text: String, wordTokens: [[Int]]?) {
        (try await transcribe(chunk: samples), nil)
    }
}
