import ChorusModels
import ChorusONNX
import ChorusSpeech
import Foundation

/// Voices from clips: upstream's `prepare_conditionals` on the export's speech encoder (a clip of more than 5 s
/// at 24 kHz, -27 LUFS; no transcript), its four outputs stored in the model folder's voices.
extension ChatterboxSynthesizer: StoredVoices {
    public var cloningNeedsTranscript: Bool { false }
    public var acceptedClipDuration: ClosedRange<Double> { SpeechEncoder.minimumSeconds...SpeechEncoder.maximumSeconds }

    /// A voice made from `clip` (any rate), in memory; the speech encoder is loaded on the first clone.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try clip.check(accepting: acceptedClipDuration, engine: engineName)
        let id = try Self.store(folder.voices).checkedNewID(id, replacing: true)
        let prepared = try SpeechEncoder.preparedClip(clip.samples, sampleRate: clip.sampleRate)  // refused before loading
        guard folder.hasSpeechEncoder else {
            throw ModelError.missingFile(model: "Chatterbox Turbo", path: folder.path(ChatterboxModelFolder.speechEncoder),
                                         remedy: "Run chorus models pull chatterbox.")
        }
        // The decoder's prompt is cut to leave room for speech, and the voice checked as speaking checks it.
        let capacity = try ChatterboxCapacity(folder: folder)
        let conditioning = capacity.fitted(try await InferenceExecutor.shared.run { [self] in
            try SpeechEncoder(session: speechEncoder.session()).encode(prepared, sampleRate: ConditionalDecoder.sampleRate)
        })
        guard capacity.draws(textIDs: 2, voice: conditioning, longest: 1) >= 1 else {
            throw ChatterboxError.promptTooLong(tokens: conditioning.conditioningLength + 2, limit: capacity.positions)
        }
        let voice = Voice(id: id, engine: engineName, language: "en", gender: .unknown,
                          summary: String(format: "cloned from a %.1f s clip", clip.duration))
        return ClonedVoice(voice: voice, conditioning: conditioning)
    }

    public var voiceStore: VoiceStore { Self.store(folder.voices) }

    public func writeVoice(_ conditioning: VoiceConditioning, to folder: URL) throws {
        try conditioning.write(to: folder)
    }
}
