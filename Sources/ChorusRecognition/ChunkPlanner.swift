import ChorusVAD

/// Where to cut audio that is longer than one recogniser call.
///
/// A cut goes in the middle of a pause between speech segments when one lies in the second half
/// of the allowed length, so no word is split and the chunks simply follow each other; without
/// such a pause the audio is cut at the limit and the next chunk starts `overlapSamples` earlier,
/// for the transcripts to be merged on the words both heard.
public struct ChunkPlanner: Sendable, Equatable {
    /// One planned chunk.
    public struct Chunk: Sendable, Equatable {
        /// The chunk's samples in the whole audio.
        public var samples: Range<Int>
        /// Whether this chunk repeats the end of the one before (a cut without a pause).
        public var overlapsPrevious: Bool

        public init(samples: Range<Int>, overlapsPrevious: Bool) {
            self.samples = samples
            self.overlapsPrevious = overlapsPrevious
        }
    }

    /// The longest chunk, in samples.
    public var maximumSamples: Int
    /// Audio the next chunk repeats after a cut without a pause.
    public var overlapSamples: Int

    public init(maximumSamples: Int, overlapSamples: Int) {
        precondition(maximumSamples > 0 && overlapSamples >= 0 && overlapSamples < maximumSamples / 2,
                     "the overlap must be less than half the chunk")
        self.maximumSamples = maximumSamples
        self.overlapSamples = overlapSamples
    }

    /// Chunks covering `sampleCount` samples, cut at the pauses between `speech` segments where possible.
    public func chunks(sampleCount: Int, speech: [SpeechSegment] = []) -> [Chunk] {
        let pauses = zip(speech, speech.dropFirst()).compactMap { previous, next in
            next.start > previous.end ? (previous.end + next.start) / 2 : nil
        }
        var chunks: [Chunk] = []
        var start = 0
        var overlaps = false
        while sampleCount - start > maximumSamples {
            let limit = start + maximumSamples
            if let pause = pauses.last(where: { $0 > start + maximumSamples / 2 && $0 <= limit }) {
                chunks.append(Chunk(samples: start..<pause, overlapsPrevious: overlaps))
                start = pause
                overlaps = false
            } else {
                chunks.append(Chunk(samples: start..<limit, overlapsPrevious: overlaps))
                start = limit - overlapSamples
                overlaps = true
            }
        }
        chunks.append(Chunk(samples: start..<sampleCount, overlapsPrevious: overlaps))
        return chunks
    }
}

extension ChunkTranscribing {
    /// The text of `samples` of any length: cut per `planner` (at the pauses in `speech` where
    /// possible) when longer than one call takes, each chunk transcribed, and the texts merged.
    public func transcribe(
        _ samples: [Float], speech: [SpeechSegment] = [], overlapSeconds: Double = 2,
        merger: TranscriptMerger = TranscriptMerger()
    ) async throws -> String {
        guard let maximum = maximumChunkSamples, samples.count > maximum else {
            return try await transcribe(chunk: samples)
        }
        let planner = ChunkPlanner(maximumSamples: maximum,
                                   overlapSamples: min(Int(overlapSeconds * Double(sampleRate)), maximum / 2 - 1))
        let merger = merger.maximumOverlapWords == nil
            ? merger.bounded(toOverlapSeconds: Double(planner.overlapSamples) / Double(sampleRate)) : merger
        var text = ""
        for chunk in planner.chunks(sampleCount: samples.count, speech: speech) {
            let piece = try await transcribe(chunk: Array(samples[chunk.samples]))
            text = chunk.overlapsPrevious ? merger.merge(text, piece) : [text, piece].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return text
    }
}
