import ChorusONNX
import ChorusSpeech
import Foundation

/// Voices from clips: upstream's `prepare_conditionals` on the export's speech encoder (a clip of more than 5 s
/// at 24 kHz, -27 LUFS; no transcript), its four outputs stored in the model folder's voices.
extension ChatterboxSynthesizer: VoiceCloning {
    public var cloningNeedsTranscript: Bool { false }
    public var acceptedClipDuration: ClosedRange<Double> { SpeechEncoder.minimumSeconds...SpeechEncoder.maximumSeconds }

    /// A voice made from `clip` (any rate), in memory; the speech encoder is loaded on the first clone.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try clip.check(accepting: acceptedClipDuration, engine: engineName)
        let id = try Self.store(folder.voices).checkedNewID(id, replacing: true)
        let prepared = try SpeechEncoder.preparedClip(clip.samples, sampleRate: clip.sampleRate)  // refused before loading
        guard folder.hasSpeechEncoder else {
            throw ChatterboxError.unexpectedModel(path: folder.path(ChatterboxModelFolder.speechEncoder),
                                                  reason: "is missing; run `chorus models pull chatterbox`")
        }
        let conditioning = try await InferenceExecutor.shared.run { [self] in
            try SpeechEncoder(session: speechEncoderSession()).encode(prepared, sampleRate: ConditionalDecoder.sampleRate)
        }
        let voice = Voice(id: id, engine: engineName, language: "en", gender: .unknown,
                          summary: String(format: "cloned from a %.1f s clip", clip.duration))
        return ClonedVoice(voice: voice, conditioning: conditioning)
    }

    /// Writes `voice` into the model folder's voices; its id must be new unless `replacing`. What the engine
    /// kept of a voice it replaces (its conditioning, its chunks' audio) is dropped.
    public func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        guard voice.voice.engine == engineName, let conditioning = voice.conditioning as? VoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        try Self.store(folder.voices).write(id: voice.voice.id, replacing: replacing) { try conditioning.write(to: $0) }
        forgetVoice(voice.voice.id)
    }

    /// Deletes the installed voice `id`, and what the engine kept of it.
    public func removeVoice(id: String) async throws {
        guard voices.contains(where: { $0.id == id }) || unusableVoices.contains(where: { $0.id == id }) else {
            throw SpeechError.unknownVoice(id, engine: engineName, available: voices.map(\.id))
        }
        try Self.store(folder.voices).remove(id: id)
        forgetVoice(id)
    }
}
