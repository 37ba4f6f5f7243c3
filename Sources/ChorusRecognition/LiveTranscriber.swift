import ChorusAudio
import ChorusONNX
import ChorusVAD

/// Transcribes a live stream: audio pushed in pieces of any size and rate, partial transcripts
/// while someone speaks, and a final transcript at each pause.
///
/// Audio is resampled to the recogniser's rate as it arrives. An utterance longer than one chunk
/// is transcribed chunk by chunk, each chunk repeating the end of the one before, and the texts are
/// merged on the words both heard. With a voice activity detector, an utterance ends at the first
/// pause (its final transcript is emitted and the text starts afresh) and silence before speech is
/// not transcribed at all; without one, everything is one utterance until `finish()`.
public actor LiveTranscriber {
    /// What the transcriber has heard so far.
    public enum Update: Equatable, Sendable {
        /// The current utterance as heard so far; later updates may change it.
        case partial(String)
        /// A finished utterance; it will not change. `tokens` are its token ids when the recogniser
        /// gives them word by word (FastConformer does), empty otherwise.
        case final(String, tokens: [Int] = [])
    }

    /// Timing of the chunks, in seconds.
    public struct Settings: Sendable, Equatable {
        /// Audio per recogniser call once an utterance is long (capped by the recogniser's limit).
        public var chunkSeconds: Double
        /// Audio each chunk repeats from the one before.
        public var overlapSeconds: Double
        /// New audio between two partial transcripts.
        public var partialIntervalSeconds: Double
        /// Silence kept before the start of speech, as the recogniser's left context.
        public var leadingSilenceSeconds: Double

        public init(chunkSeconds: Double = 8, overlapSeconds: Double = 1.5, partialIntervalSeconds: Double = 1,
                    leadingSilenceSeconds: Double = 0.3) {
            self.chunkSeconds = chunkSeconds
            self.overlapSeconds = overlapSeconds
            self.partialIntervalSeconds = partialIntervalSeconds
            self.leadingSilenceSeconds = leadingSilenceSeconds
        }
    }

    private let recognizer: any ChunkTranscribing
    private let merger: TranscriptMerger
    private var resampler: StreamingResampler?
    private var vad: StreamingVAD?
    private let chunkSamples: Int
    private let overlapSamples: Int
    private let partialSamples: Int
    private let leadingSamples: Int

    /// Audio held for the current utterance: at most about two chunks while it goes on.
    var bufferedSamples: Int { utterance.count }

    /// The current utterance's audio at the recogniser's rate, from stream offset `origin`.
    private var utterance: [Float] = []
    private var origin = 0
    /// Merged words (and their ids) of the chunks committed so far, and where in `utterance` the last one ended.
    private var committed = WordTranscript()
    private var committedEnd = 0
    private var heardSpeech = false
    private var sinceLastPartial = 0
    private var lastPartial = ""

    /// A transcriber for audio at `inputRate`; `vad` (at the recogniser's rate) finalises at pauses.
    public init(
        recognizer: any ChunkTranscribing, inputRate: Int, vad: StreamingVAD? = nil,
        settings: Settings = Settings(), merger: TranscriptMerger = TranscriptMerger()
    ) throws {
        let rate = recognizer.sampleRate
        if let vad, vad.sampleRate != rate {
            throw RecognitionError.sampleRateMismatch(expected: rate, actual: vad.sampleRate)
        }
        self.recognizer = recognizer
        self.vad = vad
        resampler = inputRate == rate ? nil : try StreamingResampler(inputRate: inputRate, outputRate: rate)
        let seconds = { (value: Double) in Int(value * Double(rate)) }
        chunkSamples = min(seconds(settings.chunkSeconds), recognizer.maximumChunkSamples ?? .max)
        overlapSamples = min(seconds(settings.overlapSeconds), chunkSamples / 2 - 1)
        partialSamples = max(1, seconds(settings.partialIntervalSeconds))
        leadingSamples = seconds(settings.leadingSilenceSeconds)
        self.merger = merger
    }

    /// Takes the next samples of the stream; returns the transcripts they complete or change.
    public func push(_ samples: [Float]) async throws -> [Update] {
        guard resampler != nil else { return try await accept(samples) }
        return try await accept(resampler!.process(samples))
    }

    /// Ends the stream: the rest is transcribed and finalised, and the transcriber is ready for a new stream.
    public func finish() async throws -> [Update] {
        var updates: [Update] = []
        if resampler != nil { updates += try await accept(resampler!.finish()) }
        if vad == nil || heardSpeech {
            let transcript = try await text(upTo: utterance.count)
            if !transcript.words.isEmpty { updates.append(.final(transcript.text, tokens: transcript.ids)) }
        }
        resampler?.reset()
        vad?.reset()
        utterance = []
        origin = 0
        startUtterance()
        return updates
    }

    private func accept(_ audio: [Float]) async throws -> [Update] {
        guard !audio.isEmpty else { return [] }
        utterance += audio
        sinceLastPartial += audio.count
        var updates: [Update] = []
        var events: [StreamingVAD.Event] = []
        if let detector = vad {
            // Silero's windows are many short model calls: one job on the inference executor for them all.
            (events, vad) = try await InferenceExecutor.shared.run {
                var advanced = detector
                return (try advanced.process(audio), advanced)
            }
        }
        for event in events {
            switch event {
            case .speechStarted(let start):
                heardSpeech = true
                dropAudio(before: start - origin - leadingSamples)
            case .speechEnded(let end):
                let cut = min(max(0, end - origin), utterance.count)
                let transcript = try await text(upTo: cut)
                if !transcript.words.isEmpty { updates.append(.final(transcript.text, tokens: transcript.ids)) }
                dropAudio(before: cut)
                startUtterance()
            }
        }
        let speaking = vad?.isSpeaking ?? true
        if !speaking, !heardSpeech {
            dropAudio(before: utterance.count - leadingSamples)
            return updates
        }
        while utterance.count - chunkStart >= chunkSamples {
            let start = chunkStart
            let piece = try await recognizer.transcribeWords(chunk: Array(utterance[start..<(start + chunkSamples)]))
            committed.append(WordTranscript(piece), merger: merger(overlapping: committedEnd - start))
            committedEnd = start + chunkSamples
        }
        // No later chunk reaches further back than one chunk before the committed end.
        dropAudio(before: committedEnd - chunkSamples)
        if speaking, sinceLastPartial >= partialSamples {
            sinceLastPartial = 0
            let text = try await text(upTo: utterance.count).text
            if text != lastPartial {
                lastPartial = text
                updates.append(.partial(text))
            }
        }
        return updates
    }

    /// Where the next chunk starts: the utterance's start, or `overlap` before the last chunk's end.
    private var chunkStart: Int { committedEnd == 0 ? 0 : committedEnd - overlapSamples }

    /// The utterance's transcript (words and their ids) up to `end`: the committed chunks merged with the rest.
    ///
    /// The rest is heard with as much context as one chunk holds (the last `chunkSamples` before
    /// `end`), since recognisers hear short snippets worse; it overlaps the committed text at least
    /// by `overlapSamples`.
    private func text(upTo end: Int) async throws -> WordTranscript {
        guard end > committedEnd || committedEnd == 0, end > 0 else { return committed }
        let start = committedEnd == 0 ? 0 : max(0, min(end - chunkSamples, chunkStart))
        let tail = try await recognizer.transcribeWords(chunk: Array(utterance[start..<end]))
        var transcript = committed
        transcript.append(WordTranscript(tail), merger: merger(overlapping: committedEnd - start))
        return transcript
    }

    /// The merger for a chunk that repeats `samples` of audio already transcribed: the shared words
    /// can be no more than that audio holds, unless the caller set its own bound.
    private func merger(overlapping samples: Int) -> TranscriptMerger {
        guard merger.maximumOverlapWords == nil else { return merger }
        return merger.bounded(toOverlapSeconds: Double(max(samples, 0)) / Double(recognizer.sampleRate))
    }

    private func dropAudio(before index: Int) {
        let count = min(max(0, index), utterance.count)
        guard count > 0 else { return }
        utterance.removeFirst(count)
        origin += count
        committedEnd = max(0, committedEnd - count)
    }

    private func startUtterance() {
        committed = WordTranscript()
        committedEnd = 0
        heardSpeech = false
        sinceLastPartial = 0
        lastPartial = ""
    }
}
