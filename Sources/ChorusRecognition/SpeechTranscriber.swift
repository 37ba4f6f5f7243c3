import ChorusAudio
import ChorusModels
import ChorusONNX
import ChorusSpeech
import ChorusVAD
import Foundation

/// What `POST /v1/audio/transcriptions` runs: audio at any rate in, text and timed segments out.
public protocol SpeechTranscriber: Sendable {
    func transcribe(_ samples: [Float], sampleRate: Int) async throws -> Transcript
}

/// A transcription: the whole text and the spans it was heard in.
public struct Transcript: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        /// Seconds from the start of the audio.
        public var start: Double
        public var end: Double
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    public var text: String
    public var segments: [Segment]
    /// The audio's length in seconds.
    public var duration: Double

    public init(text: String, segments: [Segment], duration: Double) {
        self.text = text
        self.segments = segments
        self.duration = duration
    }
}

/// FastConformer CTC with Silero VAD: each stretch of speech the VAD finds is one segment, recognised
/// on its own; without the VAD the whole clip is one segment.
public struct FastConformerTranscriber: SpeechTranscriber {
    let segmenting: SegmentingTranscriber

    /// Loads the model in `folder` (default `$CHORUS_MODELS/fastconformer`) and Silero VAD when installed.
    public init(folder: URL? = nil) throws {
        let folder = folder ?? ModelStore.current.folder(for: FastConformerRecognizer.manifest)
        let recognizer = try FastConformerRecognizer(folder: folder)
        let vad = FileManager.default.fileExists(atPath: SileroVAD.defaultModelPath) ? try SileroVAD() : nil
        segmenting = SegmentingTranscriber(vad: vad) { samples, rate in
            try await recognizer.recognize(samples, sampleRate: rate).text
        }
    }

    public func transcribe(_ samples: [Float], sampleRate: Int) async throws -> Transcript {
        try await segmenting.transcribe(samples, sampleRate: sampleRate)
    }
}

/// Any recogniser made to give timed segments: Silero VAD finds the stretches of speech (on the audio
/// resampled to its rate), and `recognize` hears each stretch at the audio's own rate; a stretch heard
/// as nothing is left out. Without a VAD the whole clip is one segment.
public struct SegmentingTranscriber: SpeechTranscriber {
    let vad: SileroVAD?
    let recognize: @Sendable ([Float], Int) async throws -> String

    /// - Parameter recognize: the text of some samples at a rate.
    public init(vad: SileroVAD?, recognize: @escaping @Sendable (_ samples: [Float], _ sampleRate: Int) async throws -> String) {
        self.vad = vad
        self.recognize = recognize
    }

    public func transcribe(_ samples: [Float], sampleRate: Int) async throws -> Transcript {
        let duration = sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0
        guard let vad else {
            let text = try await recognize(samples, sampleRate)
            return Transcript(text: text, segments: text.isEmpty ? [] : [.init(start: 0, end: duration, text: text)], duration: duration)
        }
        let spans = try await InferenceExecutor.shared.run {
            var detector = vad
            return try detector.speechSegments(in: sampleRate == detector.sampleRate
                ? samples : try Resampler.resample(samples, from: sampleRate, to: detector.sampleRate))
        }
        var segments: [Transcript.Segment] = []
        for span in spans {
            let start = Int(span.startTime * Double(sampleRate)), end = min(samples.count, Int(span.endTime * Double(sampleRate)))
            guard start < end else { continue }
            let text = try await recognize(Array(samples[start..<end]), sampleRate)
            if !text.isEmpty { segments.append(.init(start: span.startTime, end: span.endTime, text: text)) }
        }
        return Transcript(text: segments.map(\.text).joined(separator: " "), segments: segments, duration: duration)
    }
}
