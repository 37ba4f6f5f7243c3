import ChorusONNX
import ChorusSpeech
import Foundation

/// Zero-shot cloning: a clip and its transcript become a voice (upstream `frontend_zero_shot`),
/// usable at once in memory and, once registered, listed and usable by id without reloading.
extension CosyVoiceSynthesizer: VoiceCloning {
    public var cloningNeedsTranscript: Bool { true }
    public var acceptedClipDuration: ClosedRange<Double> { VoiceExtractor.minimumDuration...VoiceExtractor.maximumDuration }

    /// A voice made from `clip` (any rate; its exact transcript required), in memory. The first clone
    /// loads campplus.onnx and speech_tokenizer_v3.onnx from the model folder.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        guard let transcript = clip.transcript else { throw CosyVoiceError.emptyTranscript }
        let prompt = try await configuration.executor.run { [self] in
            try Self.encode(clip, transcript: transcript, with: catalog.extractor(folder: modelFolder))
        }
        let voice = Voice(id: id, engine: engineName, language: language ?? "und", gender: .unknown,
                          summary: "cloned from a \(String(format: "%.1f", clip.duration)) s clip")
        return ClonedVoice(voice: voice, conditioning: CosyVoiceConditioning(prompt: prompt))
    }

    /// `clip` through any voice encoder whose voices are CosyVoice prompts (the stage as the protocol drives it).
    static func encode<Encoder: VoiceEncoder>(_ clip: VoiceClip, transcript: String?, with encoder: Encoder) throws -> VoicePrompt
    where Encoder.EncodedVoice == VoicePrompt {
        try encoder.encode(samples: clip.samples, sampleRate: clip.sampleRate, transcript: transcript)
    }

    /// Writes `voice` into the voices folder (see `VoiceCatalog`) and lists it; its id must be new.
    public func register(_ voice: ClonedVoice) async throws {
        guard voice.voice.engine == engineName, let conditioning = voice.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        let description = voice.voice
        let folder = try VoiceCatalog.add(conditioning.prompt, id: description.id, language: description.language,
                                          gender: description.gender, summary: description.summary,
                                          instruction: conditioning.instruction, to: voicesFolder)
        catalog.insert(VoiceCatalog.Entry(voice: description, folder: folder,
                                          duration: Double(conditioning.prompt.speechTokens.count) / 25,
                                          instruction: conditioning.instruction))
    }

    /// Deletes the installed voice `id` from the voices folder and the list.
    public func removeVoice(id: String) async throws {
        guard let entry = catalog.entry(id) else {
            throw SpeechError.unknownVoice(id, engine: engineName, available: voices.map(\.id))
        }
        try FileManager.default.removeItem(at: entry.folder)
        catalog.remove(id)
    }
}

/// The engine's installed voices and, once a clone needs it, the voice extractor; shared by the
/// engine's concurrent requests, so read and changed under a lock.
final class InstalledVoices: @unchecked Sendable {
    private let lock = NSLock()
    private var byID: [String: VoiceCatalog.Entry]
    private var unusableByID: [String: UnusableVoice]
    private var loadedExtractor: VoiceExtractor?

    init(_ contents: VoiceCatalog.Contents) {
        byID = Dictionary(contents.entries.map { ($0.voice.id, $0) }, uniquingKeysWith: { first, _ in first })
        unusableByID = Dictionary(contents.unusable.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The installed voices that cannot be used, sorted by id.
    var unusable: [UnusableVoice] { lock.withLock { unusableByID.values.sorted { $0.id < $1.id } } }

    /// Every voice, sorted by id.
    var entries: [VoiceCatalog.Entry] { lock.withLock { byID.values.sorted { $0.voice.id < $1.voice.id } } }

    func entry(_ id: String) -> VoiceCatalog.Entry? { lock.withLock { byID[id] } }

    func insert(_ entry: VoiceCatalog.Entry) {
        lock.withLock {
            byID[entry.voice.id] = entry
            unusableByID[entry.voice.id] = nil
        }
    }

    func remove(_ id: String) {
        lock.withLock {
            byID[id] = nil
            unusableByID[id] = nil
        }
    }

    /// The extractor over `folder`'s campplus and speech tokenizer, loaded on first use.
    func extractor(folder: URL) throws -> VoiceExtractor {
        try lock.withLock {
            if let loadedExtractor { return loadedExtractor }
            let made = try VoiceExtractor(folder: folder)
            loadedExtractor = made
            return made
        }
    }
}
