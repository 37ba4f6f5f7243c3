/// Voice activity on a live stream: audio in pieces of any size, speech starts and ends out.
///
/// Follows the Python package's `VADIterator`: speech starts at the first window at or above the
/// threshold (reported `speechPadMilliseconds` early), and ends once windows stay below the
/// segmenter's negative threshold for `minSilenceMilliseconds` (reported padded likewise). Offsets
/// count samples since the stream began or was last reset.
public struct StreamingVAD: Sendable {
    /// A change of state, at a sample offset in the stream.
    public enum Event: Equatable, Sendable {
        case speechStarted(at: Int)
        case speechEnded(at: Int)
    }

    /// Thresholds, minimum silence and padding; the speech and length limits do not apply live.
    public let segmenter: SpeechSegmenter
    /// Whether speech is going on after the last window.
    public private(set) var isSpeaking = false
    /// Samples consumed by whole windows so far.
    public private(set) var processedSamples = 0

    private var vad: SileroVAD
    private var pending: [Float] = []
    private var silenceStart = 0

    /// A stream over `vad` (its state is reset) with the thresholds and durations of `segmenter`.
    public init(vad: SileroVAD, segmenter: SpeechSegmenter = SpeechSegmenter()) throws {
        try segmenter.validate()
        self.vad = vad
        self.segmenter = segmenter
        self.vad.reset()
    }

    /// The rate the stream must be at.
    public var sampleRate: Int { vad.sampleRate }

    /// Feeds the next samples and returns the events of every window they complete.
    public mutating func process(_ samples: [Float]) throws -> [Event] {
        pending += samples
        let window = vad.windowSize
        let pad = Double(sampleRate * segmenter.speechPadMilliseconds) / 1000
        let minSilence = Double(sampleRate * segmenter.minSilenceMilliseconds) / 1000
        let exit = segmenter.effectiveNegativeThreshold
        var events: [Event] = []
        var consumed = 0
        while pending.count - consumed >= window {
            let probability = Double(try vad.probability(of: pending[consumed..<(consumed + window)]))
            consumed += window
            processedSamples += window
            if probability >= segmenter.threshold {
                silenceStart = 0
                if !isSpeaking {
                    isSpeaking = true
                    events.append(.speechStarted(at: Int(max(0, Double(processedSamples) - pad - Double(window)))))
                }
            } else if probability < exit, isSpeaking {
                if silenceStart == 0 { silenceStart = processedSamples }
                if Double(processedSamples - silenceStart) >= minSilence {
                    events.append(.speechEnded(at: Int(Double(silenceStart) + pad - Double(window))))
                    silenceStart = 0
                    isSpeaking = false
                }
            }
        }
        pending.removeFirst(consumed)
        return events
    }

    /// Starts a new stream: zero model state, offsets from zero.
    public mutating func reset() {
        vad.reset()
        pending = []
        isSpeaking = false
        silenceStart = 0
        processedSamples = 0
    }
}
