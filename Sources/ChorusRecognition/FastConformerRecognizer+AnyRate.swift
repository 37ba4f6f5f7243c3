import ChorusAudio
import ChorusONNX
import ChorusVAD

extension FastConformerRecognizer {
    /// What is said in `samples` at any `sampleRate` (mono): resampled to 16 kHz first, and, when
    /// `vad` is given and the audio is longer than one call, cut at the pauses it finds.
    public func recognize(_ samples: [Float], sampleRate: Int, vad: SileroVAD? = nil) async throws -> Recognition {
        let audio = sampleRate == self.sampleRate || samples.isEmpty
            ? samples : try Resampler.resample(samples, from: sampleRate, to: self.sampleRate)
        var speech: [SpeechSegment] = []
        if let vad, let limit = maximumChunkSamples, audio.count > limit {
            // Silero runs a short window at a time, thousands of calls: one job for all of them.
            speech = try await InferenceExecutor.shared.run {
                var detector = vad
                return try detector.speechSegments(in: audio)
            }
        }
        return try await recognize(audio, speech: speech)
    }
}
