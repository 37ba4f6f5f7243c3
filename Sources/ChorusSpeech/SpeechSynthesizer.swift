/// A text-to-speech engine: text in, mono Float32 samples out at `sampleRate`.
///
/// Engines speak text of any length by splitting it into pieces their model accepts;
/// `stream` yields each piece's audio as soon as it is ready, `synthesize` returns it all.
public protocol SpeechSynthesizer: Sendable {
    /// Short lower-case engine name used on the command line ("kokoro", "piper").
    var engineName: String { get }
    /// Output sample rate in Hz.
    var sampleRate: Int { get }
    /// Voices this engine can use, the default first.
    var voices: [Voice] { get }
    /// Voices installed on disk that cannot be used (a damaged description, a missing file), with why;
    /// they are left out of `voices` so the others still work.
    var unusableVoices: [UnusableVoice] { get }
    /// Audio for `request`, piece by piece, in order.
    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error>
    /// Pieces of one request's text the engine runs at once (see `ParallelPieces`); 1 for an engine
    /// that makes one call at a time. Callers with several sentences in hand give such an engine
    /// them in one request, so that they run side by side.
    var piecesInFlight: Int { get }
    /// Seconds of silence the engine puts between the sentences of one request (Piper's pause); 0 for an
    /// engine whose model makes its own pauses. Callers that speak one text as several requests put it
    /// between the requests too, so every sentence is followed by the same pause.
    var sentenceSilence: Double { get }
    /// How the engine reads text here, for a user who asks (`chorus speak -v`): its text normalisation, its
    /// phonemizer's version; nil when there is nothing to say. The engine says it, so no caller needs its type.
    var diagnostics: String? { get }
}

/// An installed voice that cannot be used, and why ("voice.json is not valid: ...").
public struct UnusableVoice: Sendable, Hashable, CustomStringConvertible {
    public var id: String
    public var problem: String

    public init(id: String, problem: String) {
        self.id = id
        self.problem = problem
    }

    public var description: String { "\(id): \(problem)" }
}

extension SpeechSynthesizer {
    public var unusableVoices: [UnusableVoice] { [] }
    public var piecesInFlight: Int { 1 }
    public var sentenceSilence: Double { 0 }
    public var diagnostics: String? { nil }

    /// The whole utterance as one buffer. Nothing of it is heard before it is all made, so the request
    /// is made with the whole text as its priority (`SynthesisRequest.Priority.wholeText`).
    public func synthesize(_ request: SynthesisRequest) async throws -> [Float] {
        var request = request
        request.priority = .wholeText
        var samples: [Float] = []
        for try await chunk in stream(request) {
            samples.append(contentsOf: chunk.samples)
        }
        return samples
    }

    /// The voice `reference` names: the default voice when nil, an installed voice by id, or a cloned
    /// voice this engine made; throws `SpeechError.unknownVoice` or `.clonedVoiceOfAnotherEngine` otherwise.
    public func voice(_ reference: VoiceReference?) throws -> Voice {
        switch reference {
        case nil: return try voice(nil as String?)
        case .installed(let id)?: return try voice(id)
        case .cloned(let cloned)?:
            guard cloned.voice.engine == engineName else {
                throw SpeechError.clonedVoiceOfAnotherEngine(voice: cloned.voice.id, madeBy: cloned.voice.engine,
                                                             engine: engineName)
            }
            return cloned.voice
        }
    }

    /// The voice `id` names, or the default voice when `id` is nil; throws `SpeechError.unknownVoice` otherwise.
    public func voice(_ id: String?) throws -> Voice {
        try VoiceStore.Contents(voices: voices, unusable: unusableVoices).entry(id, engine: engineName, id: \.id)
    }
}
