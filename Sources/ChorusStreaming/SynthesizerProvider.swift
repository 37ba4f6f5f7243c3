import Foundation
import ChorusSpeech
import ChorusText

/// A `TTSProvider` over any local engine: speaks each sentence as soon as its text is complete,
/// the first one in two pieces when it is long (see `SentenceSegmenter.firstPieceLength`).
///
/// Synthesis is pulled: the next sentence is synthesised only when the pipeline asks for more
/// audio, so the pipeline's backpressure also pauses the engine. An engine that runs pieces side by
/// side (`piecesInFlight` > 1) is given the sentences in hand after the first as one request, and
/// runs up to that many calls ahead of the pipeline. Between two requests goes the engine's
/// `sentenceSilence`, the pause it puts between the sentences of one request, so a pause does not
/// depend on how sentences were grouped. The bytes are Float32 mono at the engine's rate, as the
/// engine made them.
public struct SynthesizerProvider<Synthesizer: SpeechSynthesizer>: TTSProvider {
    public let synthesizer: Synthesizer
    /// The voice: an installed voice's id or a cloned voice; nil for the engine's default voice.
    public var voice: VoiceReference?
    /// Speaking rate, 1 being natural.
    public var speed: Float
    /// The longest text handed to the engine at once, in characters.
    public var maximumSentenceLength: Int
    /// The longest first piece, in characters, when the first sentence is longer: a long first sentence
    /// is cut short there (at a clause, else before a joining word) so that speech starts sooner, as
    /// `PieceRamp` cuts an engine's first piece; nil speaks it whole.
    public var firstPieceLength: Int?

    public init(
        synthesizer: Synthesizer, voice: VoiceReference? = nil, speed: Float = 1, maximumSentenceLength: Int = 300,
        firstPieceLength: Int? = 60
    ) {
        self.synthesizer = synthesizer
        self.voice = voice
        self.speed = speed
        self.maximumSentenceLength = maximumSentenceLength
        self.firstPieceLength = firstPieceLength
    }

    public var outputFormat: AudioFormat {
        AudioFormat(sampleRate: synthesizer.sampleRate, channels: 1, encoding: .float32)
    }

    public func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error> {
        let synthesis = SentenceSynthesis(
            synthesizer: synthesizer, voice: voice, speed: speed,
            text: text, segmenter: SentenceSegmenter(maximumLength: maximumSentenceLength, firstPieceLength: firstPieceLength))
        return AsyncThrowingStream { try await synthesis.nextAudio() }
    }
}

/// The state of one `SynthesizerProvider` stream: text waiting to become sentences, sentences
/// waiting to be spoken, and the engine stream of the sentence being spoken.
///
/// `@unchecked Sendable` because `AsyncThrowingStream(unfolding:)` calls `nextAudio` from one
/// consumer, one call at a time, so its state is never touched concurrently.
private final class SentenceSynthesis<Synthesizer: SpeechSynthesizer>: @unchecked Sendable {
    private let synthesizer: Synthesizer
    private let voice: VoiceReference?
    private let speed: Float
    private var text: AsyncStream<String>.Iterator
    private var segmenter: SentenceSegmenter
    private var sentences: [String] = []
    private var textEnded = false
    private var startedSpeaking = false
    private var audio: AsyncThrowingStream<AudioChunk, any Error>.Iterator?

    init(synthesizer: Synthesizer, voice: VoiceReference?, speed: Float, text: AsyncStream<String>, segmenter: SentenceSegmenter) {
        self.synthesizer = synthesizer
        self.voice = voice
        self.speed = speed
        self.text = text.makeAsyncIterator()
        self.segmenter = segmenter
    }

    /// The next piece of audio as Float32 bytes, or nil when all text is spoken.
    func nextAudio() async throws -> Data? {
        while true {
            try Task.checkCancellation()
            if var chunks = audio {
                let chunk = try await chunks.next()
                audio = chunks
                if let chunk {
                    if chunk.samples.isEmpty { continue }
                    // Every platform Swift runs on is little-endian, so the native bytes are the wire bytes.
                    return chunk.samples.withUnsafeBytes { Data($0) }
                }
                audio = nil
            }
            if !sentences.isEmpty {
                // After the first, sentences in hand go to an engine that runs pieces side by side
                // as one request, so they do; the first goes alone, so the first audio is not later.
                let count = startedSpeaking && synthesizer.piecesInFlight > 1 ? sentences.count : 1
                let text = sentences.prefix(count).joined(separator: " ")
                sentences.removeFirst(count)
                let follows = startedSpeaking
                startedSpeaking = true
                audio = synthesizer.stream(SynthesisRequest(text: text, voice: voice, speed: speed)).makeAsyncIterator()
                let pause = follows ? Int(synthesizer.sentenceSilence * Double(synthesizer.sampleRate)) : 0
                if pause > 0 { return Data(count: pause * MemoryLayout<Float>.size) }
                continue
            }
            if textEnded { return nil }
            if let piece = await text.next() {
                sentences += segmenter.append(piece)
            } else {
                try Task.checkCancellation()
                textEnded = true
                sentences += segmenter.finish()
            }
        }
    }
}

extension SpeechSynthesizer {
    /// A streaming provider that speaks with this engine; callable on `any SpeechSynthesizer`.
    public func streamingProvider(voice: VoiceReference? = nil, speed: Float = 1) -> any TTSProvider {
        SynthesizerProvider(synthesizer: self, voice: voice, speed: speed)
    }
}
