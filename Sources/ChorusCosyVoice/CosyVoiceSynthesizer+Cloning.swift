import ChorusONNX
import ChorusSpeech
import Foundation

/// Zero-shot cloning: a clip and its transcript become a voice (upstream `frontend_zero_shot`),
/// usable at once in memory and, once registered, listed and usable by id without reloading. The clip goes
/// through the engine's `CosyVoiceCloner`, which `chorus voice add` loads alone.
extension CosyVoiceSynthesizer: VoiceCloning {
    public var cloningNeedsTranscript: Bool { cloner.cloningNeedsTranscript }
    public var acceptedClipDuration: ClosedRange<Double> { cloner.acceptedClipDuration }

    /// A voice made from `clip` (see `CosyVoiceCloner.cloneVoice`), its encoders run on the engine's executor.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try await cloner.cloneVoice(from: clip, id: id, language: language)
    }

    /// `clip` through any voice encoder whose voices are CosyVoice prompts (the stage as the protocol drives it).
    static func encode<Encoder: VoiceEncoder>(_ clip: VoiceClip, transcript: String?, with encoder: Encoder) throws -> VoicePrompt
    where Encoder.EncodedVoice == VoicePrompt {
        try encoder.encode(samples: clip.samples, sampleRate: clip.sampleRate, transcript: transcript)
    }

    /// Writes `voice` into the voices folder (see `VoiceCatalog`) and lists it; its id must be new unless `replacing`.
    /// The voice's prompt text is checked first by the rule every request in it meets (`Frontend.promptTokens`).
    public func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        if let conditioning = voice.conditioning as? CosyVoiceConditioning {
            _ = try frontend.promptTokens(transcript: conditioning.prompt.text, instruction: conditioning.instruction)
        }
        try cloner.write(voice, replacing: replacing)
        catalog.forget(voice.voice.id)
    }

    /// Deletes the installed voice `id` (usable or not) from the voices folder.
    public func removeVoice(id: String) async throws {
        try await cloner.removeVoice(id: id)
        catalog.forget(id)
    }
}

/// CosyVoice's cloning without its speaking stages: a clip through campplus and the speech tokenizer (loaded by
/// the first clone), voices written to and removed from a voices folder. `chorus voice add` loads only this
/// (`Engine.loadCloner`), not the LLM, flow and vocoder; `CosyVoiceSynthesizer` clones through one of its own.
public final class CosyVoiceCloner: InstructedVoices, @unchecked Sendable {
    public let engineName = "cosyvoice"
    public var cloningNeedsTranscript: Bool { true }
    public var acceptedClipDuration: ClosedRange<Double> { VoiceExtractor.minimumDuration...VoiceExtractor.maximumDuration }
    /// The folder holding campplus.onnx and speech_tokenizer_v3.onnx.
    public let modelFolder: URL
    /// The folder installed voices live in.
    public let voicesFolder: URL
    private let executor: InferenceExecutor
    private let lock = NSLock()
    private var loadedExtractor: VoiceExtractor?

    /// The cloner over the model folder `modelFolder` (the default one when nil) and its voices (`voicesFolder`,
    /// the model folder's `voices` when nil); nothing is loaded until the first clone.
    public init(modelFolder: URL? = nil, voicesFolder: URL? = nil, executor: InferenceExecutor = .shared) {
        let modelFolder = modelFolder ?? CosyVoiceSynthesizer.defaultFolder
        self.modelFolder = modelFolder
        self.voicesFolder = voicesFolder ?? CosyVoiceSynthesizer.voicesFolder(of: modelFolder)
        self.executor = executor
    }

    /// A voice made from `clip` (any rate) and its exact transcript, in memory. Without a transcript the voice
    /// speaks only cross-lingually (upstream `inference_cross_lingual` reads none). The first clone loads
    /// campplus.onnx and speech_tokenizer_v3.onnx from the model folder.
    public func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        try clip.check(accepting: acceptedClipDuration, engine: engineName)
        let transcript = clip.transcript?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let transcript, transcript.isEmpty { throw CosyVoiceError.emptyTranscript }
        let id = try VoiceCatalog.store(voicesFolder).checkedNewID(id, replacing: true)
        let prompt = try await executor.run { [self] in
            try CosyVoiceSynthesizer.encode(clip, transcript: transcript, with: extractor())
        }
        // A clip the encoders make nothing of (a constant tone: an all-zero speaker embedding) is the clip's fault.
        if let problem = prompt.valueProblem {
            throw SpeechError.unusableClip(problem: "the voice made of it is unusable (\(problem)); give a clip of ordinary speech")
        }
        var summary = String(format: "cloned from a %.1f s clip", clip.duration)
        if transcript == nil { summary += ", no transcript: cross-lingual only" }
        let voice = Voice(id: id, engine: engineName, language: language ?? "und", gender: .unknown, summary: summary)
        return ClonedVoice(voice: voice, conditioning: CosyVoiceConditioning(prompt: prompt))
    }

    /// Writes `voice` into the voices folder (see `VoiceCatalog`); its id must be new unless `replacing`.
    public func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        try write(voice, replacing: replacing)
    }

    /// Deletes the installed voice `id` (usable or not) from the voices folder.
    public func removeVoice(id: String) async throws {
        let contents = VoiceCatalog.contents(of: voicesFolder)
        guard contents.entries.contains(where: { $0.voice.id == id }) || contents.unusable.contains(where: { $0.id == id }) else {
            throw SpeechError.unknownVoice(id, engine: engineName, available: contents.entries.map(\.voice.id))
        }
        try VoiceCatalog.store(voicesFolder).remove(id: id)
    }

    /// Writes `voice` into the voices folder with its description and instruction (see `VoiceCatalog.add`).
    func write(_ voice: ClonedVoice, replacing: Bool) throws {
        guard voice.voice.engine == engineName, let conditioning = voice.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        let description = voice.voice
        try VoiceCatalog.add(conditioning.prompt, id: description.id, language: description.language,
                             gender: description.gender, summary: description.summary,
                             instruction: conditioning.instruction, to: voicesFolder, replacing: replacing)
    }

    /// The extractor over the model folder's campplus and speech tokenizer, loaded on first use.
    func extractor() throws -> VoiceExtractor {
        try lock.withLock {
            if let loadedExtractor { return loadedExtractor }
            let made = try VoiceExtractor(folder: modelFolder)
            loadedExtractor = made
            return made
        }
    }

    /// `voice` spoken as upstream's `inference_instruct2`: the LLM reads `instruction` (such as upstream's
    /// "请用广东话表达。") instead of the clip's transcript; the flow keeps the clip's timbre.
    public func instructed(_ voice: ClonedVoice, with instruction: String) throws -> ClonedVoice {
        guard voice.voice.engine == engineName, var conditioning = voice.conditioning as? CosyVoiceConditioning else {
            throw SpeechError.clonedVoiceOfAnotherEngine(voice: voice.voice.id, madeBy: voice.voice.engine, engine: engineName)
        }
        guard !instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CosyVoiceError.invalidVoice(folder: voice.voice.id, problem: "the instruction is empty")
        }
        try VoiceClip.checkStoredText(instruction, field: "instruction", limit: VoiceClip.maximumInstructionCharacters)
        conditioning.instruction = instruction
        return ClonedVoice(voice: voice.voice, conditioning: conditioning)
    }
}

extension CosyVoiceSynthesizer: InstructedVoices {
    /// `voice` with `instruction` (see `CosyVoiceCloner.instructed`).
    public func instructed(_ voice: ClonedVoice, with instruction: String) throws -> ClonedVoice {
        try cloner.instructed(voice, with: instruction)
    }
}
