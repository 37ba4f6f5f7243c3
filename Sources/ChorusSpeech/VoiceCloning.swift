import Foundation

/// A voice made from a short recording, held in memory: what the engine conditions on (a speaker
/// embedding, prompt tokens, a mel; whatever the engine needs) and a description of it.
///
/// Two cloned voices are equal only when they are the same value (copies of one clone), never by
/// content: the engine's conditioning is opaque here.
public struct ClonedVoice: Sendable, Hashable {
    /// Its description: id, engine, language, gender.
    public var voice: Voice
    /// The engine's own conditioning; only the engine that made it reads it.
    public let conditioning: any Sendable
    private let identity = UUID()

    public init(voice: Voice, conditioning: any Sendable) {
        self.voice = voice
        self.conditioning = conditioning
    }

    public static func == (lhs: ClonedVoice, rhs: ClonedVoice) -> Bool { lhs.identity == rhs.identity }
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

/// A recording to clone a voice from: mono samples at any rate, and what is said in it when known.
public struct VoiceClip: Sendable {
    public var samples: [Float]
    public var sampleRate: Int
    /// The words spoken in the clip, exactly; engines that read a transcript need it.
    public var transcript: String?

    public init(samples: [Float], sampleRate: Int, transcript: String? = nil) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.transcript = transcript
    }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }

    /// The longest transcript a voice keeps, in code points: twice what a minute of fast speech says (about
    /// 15 characters a second), so a true transcript always fits, and a stored text cannot make every request
    /// in its voice pay for megabytes of prompt.
    public static let maximumTranscriptCharacters = 2_000
    /// The longest instruction a voice keeps, in code points (upstream's are a sentence: "请用广东话表达。").
    public static let maximumInstructionCharacters = 500

    /// Throws `SpeechError.voiceTextTooLong` when `text`, the voice's `field`, has more than `limit` code points.
    public static func checkStoredText(_ text: String?, field: String, limit: Int) throws {
        guard let text else { return }
        let count = text.unicodeScalars.count
        guard count <= limit else { throw SpeechError.voiceTextTooLong(field: field, count: count, unit: "characters", limit: limit) }
    }

    /// A peak below this (-60 dBFS) is silence: no voice can be heard in it (CosyVoice's extractor's bound).
    public static let silencePeak: Float = 1e-3

    /// Throws `SpeechError.unusableClip` when the clip cannot make a voice whatever the engine: a NaN or infinite
    /// sample, no sound, or a length outside `accepted` (seconds); `SpeechError.voiceTextTooLong` for a transcript
    /// over `maximumTranscriptCharacters`. Engines check this before any model runs.
    public func check(accepting accepted: ClosedRange<Double>, engine: String) throws {
        try Self.checkStoredText(transcript, field: "transcript", limit: Self.maximumTranscriptCharacters)
        guard sampleRate > 0 else { throw SpeechError.unusableClip(problem: "its sample rate is \(sampleRate) Hz") }
        if let bad = samples.firstIndex(where: { !$0.isFinite }) {
            throw SpeechError.unusableClip(problem: "sample \(bad) is \(samples[bad]), not a number of sound; the file is damaged")
        }
        guard accepted.contains(duration) else {
            throw SpeechError.unusableClip(problem: String(
                format: "it lasts %.1f s, and the %@ engine takes clips of at least %g s and at most %g s", duration, engine,
                accepted.lowerBound, accepted.upperBound))
        }
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        guard peak >= Self.silencePeak else {
            throw SpeechError.unusableClip(problem: "it is silent (peak \(peak)); record or pick a clip with speech in it")
        }
    }
}

/// Makes voices from a few seconds of someone's speech and stores or removes them, without speaking: what
/// `chorus voice add` needs, so an engine whose speaking models are large can clone with only its encoders
/// loaded (`Engine.loadCloner`). Every `VoiceCloning` engine is one.
public protocol VoiceCloner: Sendable {
    /// The engine whose voices these are ("cosyvoice").
    var engineName: String { get }
    /// Whether `cloneVoice` needs the clip's transcript.
    var cloningNeedsTranscript: Bool { get }
    /// Clip lengths the engine accepts, in seconds.
    var acceptedClipDuration: ClosedRange<Double> { get }
    /// A voice called `id` made from `clip`; `language` is what the voice is described as speaking.
    func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice
    /// Stores `voice` with the installed voices (`VoiceStore`); throws when its id is invalid, or taken and
    /// `replacing` is false. Replacing keeps the old voice usable until the new one is in place, and drops
    /// whatever the engine kept of the old one.
    func register(_ voice: ClonedVoice, replacing: Bool) async throws
    /// Deletes the installed voice `id`, and whatever the engine kept of it.
    func removeVoice(id: String) async throws
}

/// An engine that speaks in a voice made from a few seconds of someone's speech (zero-shot cloning).
///
/// `cloneVoice` makes the voice in memory, ready for `SynthesisRequest(text:voice: .cloned(voice))`;
/// `register` also stores it with the engine's installed voices, so it is listed in `voices` and usable
/// by id from then on, without reloading the engine; `removeVoice` takes an installed one away.
public protocol VoiceCloning: SpeechSynthesizer, VoiceCloner {}

extension VoiceCloner {
    /// Stores `voice` under a new id (see `register(_:replacing:)`).
    public func register(_ voice: ClonedVoice) async throws {
        try await register(voice, replacing: false)
    }
}

/// A cloner whose voices can carry an instruction (a dialect, a speaking style) that the model reads
/// instead of the clip's transcript, keeping the clip's timbre (CosyVoice's instruct mode; `Engine`'s
/// `.instructions` capability).
public protocol InstructedVoices: VoiceCloner {
    /// `voice` spoken with `instruction`; throws when the instruction is empty or the voice is another engine's.
    func instructed(_ voice: ClonedVoice, with instruction: String) throws -> ClonedVoice
}
