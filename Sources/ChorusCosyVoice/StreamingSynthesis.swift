import ChorusSpeech

extension TokenHopSchedule {
    /// Upstream CosyVoice 3's streaming schedule (CosyVoice2Model.tts with stream=True): a first hop of
    /// 25 tokens plus padding that rounds the prompt up to a multiple of 25, the flow's 3 lookahead tokens,
    /// the hop doubled after each chunk up to 100. (Upstream keeps the doubled hop on the model between
    /// requests; here it restarts.)
    public init(promptTokens: Int) {
        self.init(firstHop: 25, maximumHop: 100, growth: 2, lookahead: FlowMatching.lookahead, promptTokens: promptTokens)
    }
}

/// The flow and the vocoder as one `SpeechTokenDecoder` for one utterance in `voice`.
///
/// Each chunk runs the flow over all tokens so far (the last three as lookahead only) and keeps the
/// mel past the previous chunk; the vocoder then re-runs over all mel so far and only the samples
/// past those already emitted are returned, as CosyVoice3Model.token2wav does, so chunks join without seams.
public struct CosyVoiceTokenDecoder: SpeechTokenDecoder {
    public let flow: FlowMatching
    public let vocoder: Vocoder
    public let voice: VoicePrompt
    public let noise: FlowNoise
    private var mel: MelSpectrogram?
    private var emitted = 0

    public var sampleRate: Int { Vocoder.sampleRate }
    public var samplesPerToken: Int { FlowMatching.tokenMelRatio * Vocoder.samplesPerFrame }
    public var lookahead: Int { FlowMatching.lookahead }

    public init(flow: FlowMatching, vocoder: Vocoder, voice: VoicePrompt, noise: FlowNoise) {
        self.flow = flow
        self.vocoder = vocoder
        self.voice = voice
        self.noise = noise
    }

    public mutating func decode(_ tokens: [Int], decoded: Int, final: Bool) throws -> [Float] {
        let generated = try flow.mel(tokens: tokens, voice: voice, noise: noise, finalize: final)
        let start = decoded * FlowMatching.tokenMelRatio
        let fresh = generated.frames(min(start, generated.frames)..<generated.frames)
        let all = mel.map { $0.appending(fresh) } ?? fresh
        mel = all
        let audio = try vocoder.audio(for: all)
        let end = final ? audio.count
            : max(0, (all.frames - Vocoder.streamingHoldbackFrames) * Vocoder.samplesPerFrame)
        guard end > emitted else { return [] }
        defer { emitted = end }
        return Array(audio[emitted..<end])
    }
}

/// One streamed CosyVoice utterance: the LLM's tokens through upstream's silence filter, then the shared
/// token streaming over `CosyVoiceTokenDecoder`.
struct StreamingSynthesis {
    private var filter = SilenceFilter()
    private var streaming: TokenStreaming<CosyVoiceTokenDecoder>

    init(flow: FlowMatching, vocoder: Vocoder, voice: VoicePrompt, noise: FlowNoise) {
        streaming = TokenStreaming(decoder: CosyVoiceTokenDecoder(flow: flow, vocoder: vocoder, voice: voice, noise: noise),
                                   schedule: TokenHopSchedule(promptTokens: voice.speechTokens.count))
    }

    /// Tokens after the silence filter, as the flow read them.
    var tokens: [Int] { streaming.tokens }

    /// Adds one drawn token; returns the audio of every chunk it completes (empty when none).
    mutating func add(_ token: Int) throws -> [Float] {
        guard filter.admit(token) else { return [] }
        return try streaming.add(token)
    }

    /// The audio of the remaining tokens.
    mutating func finish() throws -> [Float] {
        try streaming.finish()
    }
}
