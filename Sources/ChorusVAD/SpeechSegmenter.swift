/// Turns per-window speech probabilities into speech segments.
///
/// The rules are those of the Python `silero-vad` package's `get_speech_timestamps` (version 6):
/// speech starts at the first window at or above `threshold`, ends once probabilities stay below
/// `negativeThreshold` for `minSilenceMilliseconds`, segments shorter than `minSpeechMilliseconds`
/// are dropped, over-long segments are cut at their longest inner silence, and every segment is
/// padded by `speechPadMilliseconds`, or by half the gap when two segments are closer than that.
public struct SpeechSegmenter: Sendable, Equatable {
    /// Probability at or above which a window is speech.
    public var threshold: Double
    /// Probability below which a window counts as silence once speech has started;
    /// `nil` means `max(threshold - 0.15, 0.01)`, as upstream.
    public var negativeThreshold: Double?
    /// Speech shorter than this is dropped.
    public var minSpeechMilliseconds: Int
    /// Silence shorter than this does not end a segment.
    public var minSilenceMilliseconds: Int
    /// Added before and after each segment.
    public var speechPadMilliseconds: Int
    /// Segments longer than this are cut; infinity keeps them whole.
    public var maxSpeechSeconds: Double
    /// Only silences longer than this are candidate cut points for over-long segments.
    public var minSilenceAtMaxSpeechMilliseconds: Int
    /// Cut over-long segments at their longest inner silence (true) or at the last one (false).
    public var cutsAtLongestSilence: Bool

    /// The upstream defaults: 0.5, 250 ms speech, 100 ms silence, 30 ms padding, no length limit.
    public init(
        threshold: Double = 0.5, negativeThreshold: Double? = nil, minSpeechMilliseconds: Int = 250,
        minSilenceMilliseconds: Int = 100, speechPadMilliseconds: Int = 30, maxSpeechSeconds: Double = .infinity,
        minSilenceAtMaxSpeechMilliseconds: Int = 98, cutsAtLongestSilence: Bool = true
    ) {
        self.threshold = threshold
        self.negativeThreshold = negativeThreshold
        self.minSpeechMilliseconds = minSpeechMilliseconds
        self.minSilenceMilliseconds = minSilenceMilliseconds
        self.speechPadMilliseconds = speechPadMilliseconds
        self.maxSpeechSeconds = maxSpeechSeconds
        self.minSilenceAtMaxSpeechMilliseconds = minSilenceAtMaxSpeechMilliseconds
        self.cutsAtLongestSilence = cutsAtLongestSilence
    }

    /// The exit threshold in force.
    public var effectiveNegativeThreshold: Double { negativeThreshold ?? max(threshold - 0.15, 0.01) }

    /// Throws when a parameter cannot work.
    public func validate() throws {
        guard threshold > 0, threshold < 1 else {
            throw VADError.invalidParameter(name: "threshold", value: threshold, reason: "use a probability between 0 and 1")
        }
        guard effectiveNegativeThreshold <= threshold else {
            throw VADError.invalidParameter(name: "negativeThreshold", value: effectiveNegativeThreshold,
                                            reason: "it must not exceed the threshold \(threshold)")
        }
        for (name, value) in [("minSpeechMilliseconds", minSpeechMilliseconds),
                              ("minSilenceMilliseconds", minSilenceMilliseconds),
                              ("speechPadMilliseconds", speechPadMilliseconds)] where value < 0 {
            throw VADError.invalidParameter(name: name, value: Double(value), reason: "durations cannot be negative")
        }
        guard maxSpeechSeconds > 0 else {
            throw VADError.invalidParameter(name: "maxSpeechSeconds", value: maxSpeechSeconds, reason: "use a positive length")
        }
    }

    /// Segments for `probabilities`, one per window of `windowSize` samples at `sampleRate`,
    /// over audio of `audioLength` samples (the windows' span when `nil`).
    public func segments(
        probabilities: [Float], sampleRate: Int, windowSize: Int, audioLength: Int? = nil
    ) -> [SpeechSegment] {
        let rate = Double(sampleRate)
        let audioLength = audioLength ?? probabilities.count * windowSize
        // Sample counts stay Double, as upstream compares them before any rounding.
        let minSpeechSamples = rate * Double(minSpeechMilliseconds) / 1000
        let padSamples = rate * Double(speechPadMilliseconds) / 1000
        let maxSpeechSamples = rate * maxSpeechSeconds - Double(windowSize) - 2 * padSamples
        let minSilenceSamples = rate * Double(minSilenceMilliseconds) / 1000
        let minSilenceSamplesAtMaxSpeech = rate * Double(minSilenceAtMaxSpeechMilliseconds) / 1000
        let negativeThreshold = effectiveNegativeThreshold

        var triggered = false
        var speeches: [(start: Int, end: Int)] = []
        var currentStart: Int?
        // Zero means "none" for these three, exactly as upstream (a silence at sample 0 is not remembered).
        var tempEnd = 0
        var previousEnd = 0
        var nextStart = 0
        var possibleEnds: [(end: Int, silence: Int)] = []

        func closeAll() {
            previousEnd = 0
            nextStart = 0
            tempEnd = 0
            possibleEnds = []
        }

        for (index, probability) in probabilities.enumerated() {
            let sample = windowSize * index
            let probability = Double(probability)

            if probability >= threshold, tempEnd != 0 {
                let silence = sample - tempEnd
                if Double(silence) > minSilenceSamplesAtMaxSpeech { possibleEnds.append((tempEnd, silence)) }
                tempEnd = 0
                if nextStart < previousEnd { nextStart = sample }
            }

            if probability >= threshold, !triggered {
                triggered = true
                currentStart = sample
                continue
            }

            if triggered, let start = currentStart, Double(sample - start) > maxSpeechSamples {
                if cutsAtLongestSilence, let longest = possibleEnds.max(by: { $0.silence < $1.silence }) {
                    speeches.append((start, longest.end))
                    currentStart = nil
                    nextStart = longest.end + longest.silence
                    if nextStart < longest.end + sample {
                        currentStart = nextStart
                    } else {
                        triggered = false
                    }
                    closeAll()
                } else if previousEnd != 0 {
                    speeches.append((start, previousEnd))
                    currentStart = nil
                    if nextStart < previousEnd {
                        triggered = false
                    } else {
                        currentStart = nextStart
                    }
                    closeAll()
                } else {
                    speeches.append((start, sample))
                    currentStart = nil
                    closeAll()
                    triggered = false
                    continue
                }
            }

            if probability < negativeThreshold, triggered {
                if tempEnd == 0 { tempEnd = sample }
                let silenceSoFar = sample - tempEnd
                if !cutsAtLongestSilence, Double(silenceSoFar) > minSilenceSamplesAtMaxSpeech {
                    previousEnd = tempEnd
                }
                if Double(silenceSoFar) < minSilenceSamples { continue }
                if let start = currentStart, Double(tempEnd - start) > minSpeechSamples {
                    speeches.append((start, tempEnd))
                }
                currentStart = nil
                closeAll()
                triggered = false
                continue
            }
        }

        if let start = currentStart, Double(audioLength - start) > minSpeechSamples {
            speeches.append((start, audioLength))
        }

        for index in speeches.indices {
            if index == 0 {
                speeches[index].start = Int(max(0, Double(speeches[index].start) - padSamples))
            }
            if index != speeches.count - 1 {
                let gap = speeches[index + 1].start - speeches[index].end
                if Double(gap) < 2 * padSamples {
                    speeches[index].end += gap / 2
                    speeches[index + 1].start = max(0, speeches[index + 1].start - gap / 2)
                } else {
                    speeches[index].end = Int(min(Double(audioLength), Double(speeches[index].end) + padSamples))
                    speeches[index + 1].start = Int(max(0, Double(speeches[index + 1].start) - padSamples))
                }
            } else {
                speeches[index].end = Int(min(Double(audioLength), Double(speeches[index].end) + padSamples))
            }
        }
        return speeches.map { SpeechSegment(start: $0.start, end: $0.end, sampleRate: sampleRate) }
    }
}
