import ChorusONNX
import ChorusSpeech
import Foundation

/// Zero-shot cloning: a clip and its transcript become a voice (upstream `frontend_zero_shot`),
/// usable at once in memory and, once registered, listed and usable by id without reloading.
extension CosyVoiceSynthesizer: VoiceCloning {
    public var cloningNeedsTranscript: Bool { true }
    public var acceptedClipDuration: ClosedRange<Double> { VoiceExtractor.minimumDuration...VoiceExtractor.maximumDuration }

    /// A voice made from `clip` (any rate) and its exact transcript, in memory. Without a transcript the voice
    /// speaks only cross-lingually (upstream `inference_cross_lingual` reads none). The first clone loads
    /// campplus.onnx and speech_tokenizer_v3.onnx from the model folder.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try clip.check(accepting: acceptedClipDuration, engine: engineName)
        let transcript = clip.transcript?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let transcript, transcript.isEmpty { throw CosyVoiceError.emptyTranscript }
        let id = try VoiceCatalog.store(voicesFolder).checkedNewID(id, replacing: true)
        let prompt = try await configuration.executor.run { [self] in
            try Self.encode(clip, transcript: transcript, with: catalog.extractor(folder: modelFolder))
        }
        var summary = String(format: "cloned from a %.1f s clip", clip.duration)
        if transcript == nil { summary += ", no transcript: cross-lingual only" }
        let voice = Voice(id: id, engine: engineName, language: language ?? "und", gender: .unknown, summary: summary)
        return ClonedVoice(voice: voice, conditioning: CosyVoiceConditioning(prompt: prompt))
    }

    /// `clip` through any voice encoder whose voices are CosyVoice prompts (the stage as the protocol drives it).
    static func encode<Encoder: VoiceEncoder>(_ clip: VoiceClip, transcript: String?, with encoder: Encoder) throws -> VoicePrompt
    where Encoder.EncodedVoice == VoicePrompt {
        try encoder.encode(samples: clip.samples, sampleRate: clip.sampleRate, transcript: transcript)
    }

    /// Writes `voice` into the voices folder (see `VoiceCatalog`) and lists it; its id must be new unless `replacing`.
    public func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        guard voice.voice.engine == engineName, let conditioning = voice.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        let description = voice.voice
        let folder = try VoiceCatalog.add(conditioning.prompt, id: description.id, language: description.language,
                                          gender: description.gender, summary: description.summary,
                                          instruction: conditioning.instruction, to: voicesFolder, replacing: replacing)
        catalog.insert(VoiceCatalog.Entry(voice: description, folder: folder,
                                          duration: Double(conditioning.prompt.speechTokens.count) / 25,
                                          instruction: conditioning.instruction))
    }

    /// Deletes the installed voice `id` from the voices folder and the list.
    public func removeVoice(id: String) async throws {
        guard let entry = catalog.entry(id) else {
            throw SpeechError.unknownVoice(id, engine: engineName, available: voices.map(\.id))
        }
        try VoiceCatalog.store(voicesFolder).remove(id: entry.folder.lastPathComponent)
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

extension CosyVoiceSynthesizer: InstructedVoices {
    /// `voice` spoken as upstream's `inference_instruct2`: the LLM reads `instruction` (such as upstream's
    /// "请用广东话表达。") instead of the clip's transcript; the flow keeps the clip's timbre.
    public func instructed(_ voice: ClonedVoice, with instruction: String) throws -> ClonedVoice {
        guard voice.voice.engine == engineName, var conditioning = voice.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        guard !instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CosyVoiceError.invalidVoice(folder: voice.voice.id, problem: "the instruction is empty")
        }
        conditioning.instruction = instruction
        return ClonedVoice(voice: voice.voice, conditioning: conditioning)
    }
}
