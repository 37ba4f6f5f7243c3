import ChorusONNX
import ChorusSpeech
import Foundation

/// Voices from clips: upstream's `encode_reference` (the clip's NeuCodec codes) through the folder's exported
/// encoder, with the clip's transcript, stored as `NeuTTSVoice` files; or from codes already made
/// (`voice(codes:transcript:id:)`), as upstream's examples ship them.
extension NeuTTSSynthesizer: StoredVoices {
    public var cloningNeedsTranscript: Bool { true }
    public var acceptedClipDuration: ClosedRange<Double> { CodecEncoder.minimumDuration...CodecEncoder.maximumDuration }

    /// A voice made from `clip` (any rate) and its transcript, in memory; needs `encoder.onnx` in the model
    /// folder, loaded on the first clone.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try clip.check(accepting: acceptedClipDuration, engine: engineName)
        guard let transcript = clip.transcript, !transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw NeuTTSError.invalidVoice("A NeuTTS voice needs the transcript of its clip, word for word.")
        }
        let id = try NeuTTSVoice.store(folder.voices).checkedNewID(id, replacing: true)
        guard folder.hasEncoder else { throw NeuTTSError.noEncoder(folder: folder.url.path) }
        let codes = try await InferenceExecutor.shared.run { [self] in
            try CodecEncoder(session: encoder.session()).encode(clip.samples, sampleRate: clip.sampleRate)
        }
        return try voice(codes: codes, transcript: transcript, id: id,
                         summary: String(format: "%d codes (%.1f s) from a clip", codes.count, Double(codes.count) / 50))
    }

    /// A voice of reference `codes` (NeuCodec, 50 a second) and what they say, in memory.
    public func voice(codes: [Int], transcript: String, id: String, summary: String? = nil) throws -> ClonedVoice {
        let id = try VoiceID.checked(id)
        try VoiceClip.checkStoredText(transcript, field: "transcript", limit: VoiceClip.maximumTranscriptCharacters)
        let conditioning = try NeuTTSVoice(codes: codes, transcript: transcript)
        _ = try phonemeBudget(conditioning)  // what every request in the voice checks, refused here once
        let summary = summary ?? String(format: "%d codes (%.1f s)", codes.count, Double(codes.count) / 50)
        return ClonedVoice(voice: Voice(id: id, engine: engineName, language: folder.language, gender: .unknown, summary: summary),
                           conditioning: conditioning)
    }

    public var voiceStore: VoiceStore { NeuTTSVoice.store(folder.voices) }

    public func writeVoice(_ conditioning: NeuTTSVoice, to folder: URL) throws {
        try conditioning.writeFiles(to: folder)
    }
}
