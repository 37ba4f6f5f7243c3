/// When upstream streaming turns tokens into audio (CosyVoice2Model.tts with stream=True, used by
/// CosyVoice 3): the first chunk waits for 25 tokens plus padding that rounds the prompt up to a
/// multiple of 25, every chunk also waits for 3 lookahead tokens, and the hop doubles after each
/// chunk up to 100. (Upstream keeps the doubled hop on the model between requests; here it restarts.)
public struct TokenHopSchedule: Sendable, Equatable {
    /// Tokens in the first hop, before the prompt padding.
    public static let firstHop = 25
    /// The largest hop.
    public static let maximumHop = 100
    /// Hop growth per chunk (upstream `stream_scale_factor`).
    public static let scale = 2

    /// Generated tokens already turned into mel.
    public private(set) var offset = 0
    private var hop = firstHop
    private let promptPadding: Int

    /// A schedule for a voice with `promptTokens` prompt speech tokens.
    public init(promptTokens: Int) {
        let rounded = (promptTokens + Self.firstHop - 1) / Self.firstHop * Self.firstHop
        promptPadding = rounded - promptTokens
    }

    /// Tokens the next chunk turns into mel.
    public var nextHop: Int { offset == 0 ? hop + promptPadding : hop }
    /// Generated tokens that must exist before the next chunk: its hop plus the lookahead.
    public var tokensNeeded: Int { offset + nextHop + FlowMatching.lookahead }

    /// Marks the next chunk as made.
    public mutating func advance() {
        offset += nextHop
        hop = min(Self.maximumHop, hop * Self.scale)
    }
}

/// One streamed utterance: takes tokens as the LLM draws them and returns audio whenever a chunk is ready.
///
/// Each chunk runs the flow over all tokens so far (the last three as lookahead only) and keeps the
/// mel past the previous chunk; the vocoder then re-runs over all mel so far and only the samples
/// past those already emitted are returned, as CosyVoice3Model.token2wav does, so chunks join without seams.
struct StreamingSynthesis {
    let flow: FlowMatching
    let vocoder: Vocoder
    let voice: VoicePrompt
    let noise: FlowNoise
    private var filter = SilenceFilter()
    private(set) var tokens: [Int] = []
    private var schedule: TokenHopSchedule
    private var mel: MelSpectrogram?
    private var emitted = 0

    init(flow: FlowMatching, vocoder: Vocoder, voice: VoicePrompt, noise: FlowNoise) {
        self.flow = flow
        self.vocoder = vocoder
        self.voice = voice
        self.noise = noise
        schedule = TokenHopSchedule(promptTokens: voice.speechTokens.count)
    }

    /// Adds one drawn token; returns the audio of every chunk it completes (empty when none).
    mutating func add(_ token: Int) throws -> [Float] {
        guard filter.admit(token) else { return [] }
        tokens.append(token)
        var audio: [Float] = []
        while tokens.count >= schedule.tokensNeeded {
            let end = schedule.offset + schedule.nextHop + FlowMatching.lookahead
            audio += try chunk(Array(tokens.prefix(end)), finalize: false)
            schedule.advance()
        }
        return audio
    }

    /// The audio of the remaining tokens.
    mutating func finish() throws -> [Float] {
        try chunk(tokens, finalize: true)
    }

    private mutating func chunk(_ tokens: [Int], finalize: Bool) throws -> [Float] {
        let generated = try flow.mel(tokens: tokens, voice: voice, noise: noise, finalize: finalize)
        let start = schedule.offset * FlowMatching.tokenMelRatio
        let fresh = generated.frames(min(start, generated.frames)..<generated.frames)
        let all = mel.map { $0.appending(fresh) } ?? fresh
        mel = all
        let audio = try vocoder.audio(for: all)
        let end = finalize ? audio.count
            : max(0, (all.frames - Vocoder.streamingHoldbackFrames) * Vocoder.samplesPerFrame)
        guard end > emitted else { return [] }
        defer { emitted = end }
        return Array(audio[emitted..<end])
    }
}
