import ChorusONNX
import ChorusSpeech

extension TokenHopSchedule {
    /// Upstream CosyVoice 3's streaming schedule (CosyVoice2Model.tts with stream=True): a first hop of
    /// 25 tokens plus padding that rounds the prompt up to a multiple of 25, the flow's 3 lookahead tokens,
    /// the hop doubled after each chunk up to 100.
    ///
    /// Every piece of a request starts again at 25, where upstream keeps the doubled `token_hop_len` on the
    /// model (across pieces and requests) and rounds the next piece's prompt padding to it. Restarting gets
    /// each piece's first audio out far sooner, which is what keeps playback fed across a piece boundary
    /// when synthesis is not much faster than real time; carrying the hop only saves the re-runs of the
    /// flow and vocoder over a piece's early chunks. Measured on the generated models (two pieces of the
    /// golden case, second piece timed from its start, medians of 7, 15 and 15 runs, 2 threads, loaded
    /// 2-core machine; `CosyVoiceBench --hop-across-pieces`): first audio 9.1 / 13.0 / 9.9 ms restarting
    /// against 73.9 / 64.5 / 61.0 ms carried (its first chunk would need 183 tokens, so the whole piece
    /// came as one chunk); the whole piece 66.1 / 121.0 / 68.5 ms against 73.9 / 64.5 / 61.0 ms.
    public init(promptTokens: Int) {
        self.init(firstHop: 25, maximumHop: 100, growth: 2, lookahead: FlowMatching.lookahead, promptTokens: promptTokens)
    }
}

/// The flow and the vocoder as one `SpeechTokenDecoder` for one utterance in `voice`.
///
/// Each chunk runs the flow over all tokens so far (the last three as lookahead only) and keeps the
/// mel past the previous chunk; the vocoder then re-runs over all mel so far and only the samples
/// past those already emitted are returned, as CosyVoice3Model.token2wav does, so chunks join without seams.
/// As upstream's `tts(stream=True)`, the flow streams every chunk but the last (`streaming`: the chunk mask
/// when the estimator takes one) and runs the last with full attention (token2wav's default `stream=False`).
public struct CosyVoiceTokenDecoder: SpeechTokenDecoder, Sendable {
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
        let generated = try flow.mel(tokens: tokens, voice: voice, noise: noise, finalize: final, streaming: !final)
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
struct StreamingSynthesis: Sendable {
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

    /// Adds one drawn token without decoding; returns whether a chunk is now ready for `decodeReadyChunks`.
    mutating func append(_ token: Int) -> Bool {
        if filter.admit(token) { streaming.append(token) }
        return streaming.hasReadyChunk
    }

    /// The audio of every chunk the tokens so far complete.
    mutating func decodeReadyChunks() throws -> [Float] {
        try streaming.decodeReadyChunks()
    }

    /// The audio of the remaining tokens.
    mutating func finish() throws -> [Float] {
        try streaming.finish()
    }

    /// Streams the tokens `generator` draws for `request` into audio, calling `onChunk` (on the calling task)
    /// with each chunk; returns the tokens the flow read. Every model run is a job on `executor`.
    ///
    /// In turn (`overlapping` false), one job draws the tokens and decodes each chunk as it completes, so the
    /// LLM waits for the flow and the vocoder. Overlapping, the LLM is one job that draws into a stream, as
    /// upstream's `llm_job` thread does, while this task takes the tokens and runs each ready chunk's flow
    /// and vocoder as a job of its own. No job ever waits for another (the LLM only appends to the stream;
    /// this task, not a job, waits for tokens), so the executor cannot deadlock however few threads it has
    /// or however many streams share it: with one thread, the LLM runs to its end and the chunks follow.
    ///
    /// The generator stops at its next token when the stream ends early: `onChunk` or a decode threw, or
    /// this task was cancelled (which also raises the terminate flag of the run in progress, as for any
    /// job). Either way the generator's job has ended before this returns or throws.
    static func stream<Generator: SpeechTokenGenerator & Sendable>(
        _ generator: Generator, request: Generator.Prompt, into decoding: StreamingSynthesis, overlapping: Bool,
        executor: InferenceExecutor, onChunk: ([Float]) throws -> Void
    ) async throws -> [Int] where Generator.Prompt: Sendable {
        if overlapping {
            return try await streamOverlapping(generator, request: request, into: decoding, executor: executor, onChunk: onChunk)
        }
        let (chunks, output) = AsyncThrowingStream<[Float], Error>.makeStream()
        return try await withThrowingTaskGroup(of: [Int].self) { group in
            group.addTask {
                do {
                    let tokens = try await executor.run { () throws -> [Int] in
                        var decoding = decoding
                        _ = try generator.generate(request) { token in
                            try InferenceExecutor.checkCancellation()
                            let audio = try decoding.add(token)
                            if !audio.isEmpty, case .terminated = output.yield(audio) { throw CancellationError() }
                        }
                        let rest = try decoding.finish()
                        if !rest.isEmpty { output.yield(rest) }
                        return decoding.tokens
                    }
                    output.finish()
                    return tokens
                } catch {
                    output.finish(throwing: error)
                    throw error
                }
            }
            for try await audio in chunks {
                try onChunk(audio)
                try Task.checkCancellation()
            }
            // A cancelled task's stream ends without an error; the job saw the same cancel.
            try Task.checkCancellation()
            guard let tokens = try await group.next() else { throw CancellationError() }
            return tokens
        }
    }

    private static func streamOverlapping<Generator: SpeechTokenGenerator & Sendable>(
        _ generator: Generator, request: Generator.Prompt, into decoding: StreamingSynthesis,
        executor: InferenceExecutor, onChunk: ([Float]) throws -> Void
    ) async throws -> [Int] where Generator.Prompt: Sendable {
        let (drawn, input) = AsyncThrowingStream<Int, Error>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    _ = try await executor.run {
                        try generator.generate(request) { token in
                            try InferenceExecutor.checkCancellation()
                            if case .terminated = input.yield(token) { throw CancellationError() }
                        }
                    }
                    input.finish()
                } catch {
                    // Seen by the loop below as the stream's error (or unseen, when the loop had already left).
                    input.finish(throwing: error)
                }
            }
            let state = Handoff(decoding)
            for try await token in drawn {
                guard state.value.append(token) else { continue }
                let audio = try await executor.run { try state.value.decodeReadyChunks() }
                if !audio.isEmpty { try onChunk(audio) }
                try Task.checkCancellation()
            }
            try Task.checkCancellation()
            let rest = try await executor.run { try state.value.finish() }
            if !rest.isEmpty { try onChunk(rest) }
            return state.value.tokens
        }
    }

    /// The utterance's state handed between this task and the decode jobs it awaits one at a time, so it is
    /// never touched from two threads at once (and no mel is copied per chunk, as a value passed in and out would be).
    private final class Handoff: @unchecked Sendable {
        var value: StreamingSynthesis
        init(_ value: StreamingSynthesis) { self.value = value }
    }
}
