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
}

/// An engine that speaks in a voice made from a few seconds of someone's speech (zero-shot cloning).
///
/// `cloneVoice` makes the voice in memory, ready for `SynthesisRequest(text:voice: .cloned(voice))`;
/// `register` also stores it with the engine's installed voices, so it is listed in `voices` and usable
/// by id from then on, without reloading the engine; `removeVoice` takes an installed one away.
public protocol VoiceCloning: SpeechSynthesizer {
    /// Whether `cloneVoice` needs the clip's transcript.
    var cloningNeedsTranscript: Bool { get }
    /// Clip lengths the engine accepts, in seconds.
    var acceptedClipDuration: ClosedRange<Double> { get }
    /// A voice called `id` made from `clip`; `language` is what the voice is described as speaking.
    func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice
    /// Stores `voice` with the installed voices; throws when its id is taken or invalid.
    func register(_ voice: ClonedVoice) async throws
    /// Deletes the installed voice `id`.
    func removeVoice(id: String) async throws
}
