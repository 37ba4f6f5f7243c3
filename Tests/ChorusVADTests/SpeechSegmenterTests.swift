import Testing
import ChorusVAD

/// The segmentation rules on hand-made probabilities, with upstream's numbers worked by hand.
@Suite struct SpeechSegmenterTests {
    /// `speech` windows of 0.9 surrounded by `before` and `after` windows of 0.0.
    func probabilities(before: Int, speech: Int, after: Int) -> [Float] {
        [Float](repeating: 0, count: before) + [Float](repeating: 0.9, count: speech) + [Float](repeating: 0, count: after)
    }

    @Test func oneSegmentIsPaddedBy30Milliseconds() {
        let segments = SpeechSegmenter().segments(
            probabilities: probabilities(before: 10, speech: 20, after: 10), sampleRate: 16000, windowSize: 512)
        // Speech windows 10..<30: start 5120, silence from 15360; padded by 480 samples.
        #expect(segments == [SpeechSegment(start: 4640, end: 15840, sampleRate: 16000)])
    }

    @Test func shortSpeechIsDroppedAndShortSilenceBridged() {
        let segmenter = SpeechSegmenter()
        // 7 windows = 3584 samples, not more than 250 ms (4000): dropped.
        #expect(segmenter.segments(probabilities: probabilities(before: 5, speech: 7, after: 10),
                                   sampleRate: 16000, windowSize: 512).isEmpty)
        // A 3-window dip (1536 samples < 1600) inside speech does not split it.
        let bridged = probabilities(before: 2, speech: 10, after: 0) + [0, 0, 0] + probabilities(before: 0, speech: 10, after: 10)
        #expect(segmenter.segments(probabilities: bridged, sampleRate: 16000, windowSize: 512).count == 1)
        // A 5-window dip (2560 samples) does.
        let split = probabilities(before: 2, speech: 10, after: 5) + probabilities(before: 0, speech: 10, after: 10)
        #expect(segmenter.segments(probabilities: split, sampleRate: 16000, windowSize: 512).count == 2)
    }

    @Test func hysteresisKeepsSpeechBetweenTheThresholds() {
        // 0.4 is below 0.5 but above 0.35: it neither starts nor ends speech.
        let values: [Float] = [0.4, 0.4] + [Float](repeating: 0.9, count: 10) + [Float](repeating: 0.4, count: 10)
            + [Float](repeating: 0.1, count: 10)
        let segments = SpeechSegmenter().segments(probabilities: values, sampleRate: 16000, windowSize: 512)
        #expect(segments == [SpeechSegment(start: 1024 - 480, end: 22 * 512 + 480, sampleRate: 16000)])
    }

    @Test func closeSegmentsShareTheGapAndSpeechRunsToTheEnd() {
        // Silence of 5 windows at 8 kHz (1280 samples; the 5th reaches 1024 >= 800): two segments,
        // 1280 > 2 * 240 so both get the full pad; the second is open at the end and ends at the audio length.
        let values = probabilities(before: 0, speech: 10, after: 5) + [Float](repeating: 0.9, count: 10)
        let segments = SpeechSegmenter().segments(
            probabilities: values, sampleRate: 8000, windowSize: 256, audioLength: 25 * 256 - 100)
        #expect(segments == [SpeechSegment(start: 0, end: 2560 + 240, sampleRate: 8000),
                             SpeechSegment(start: 3840 - 240, end: 25 * 256 - 100, sampleRate: 8000)])
    }

    @Test func overLongSpeechIsCutAtItsLongestSilence() {
        // 2 s limit; a 4-window (128 ms) dip is not a pause but is a candidate cut point.
        let values = probabilities(before: 0, speech: 40, after: 0) + [0.2, 0.2, 0.2, 0.2]
            + probabilities(before: 0, speech: 40, after: 10)
        let segments = SpeechSegmenter(maxSpeechSeconds: 2).segments(
            probabilities: values, sampleRate: 16000, windowSize: 512)
        #expect(segments.count == 2)
        #expect(segments.first?.end == 40 * 512 + 480)
    }

    @Test func invalidParametersAreNamed() {
        #expect(throws: VADError.self) { try SpeechSegmenter(threshold: 1.5).validate() }
        #expect(throws: VADError.self) { try SpeechSegmenter(minSilenceMilliseconds: -1).validate() }
        #expect(throws: Never.self) { try SpeechSegmenter().validate() }
    }
}
