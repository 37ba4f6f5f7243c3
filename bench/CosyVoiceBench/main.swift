// CosyVoiceBench: times Chorus's CosyVoice pipeline stage by stage (LLM, flow, vocoder), whole and
// streamed, and how much of it is spent inside ONNX Runtime's Run; prints JSON for
// bench/cosyvoice_bench.py, which runs the Python reference on the same models in the same run.
// --decode-steps N: memory over a long decode; --hop-across-pieces: the second piece's first audio with
// the hop restarted and with upstream's carried hop.
import BenchSupport
import ChorusCosyVoice
import Foundation
import ChorusDSP
import ChorusONNX
import ChorusSpeech

struct Case: Decodable {
    var promptTextTokens: [Int]
    var textTokens: [Int]
    var samplingSeed: UInt64
    var noiseSeed: UInt64
}

struct Run: Encodable {
    var llm = 0.0, flow = 0.0, vocoder = 0.0, whole = 0.0, inRun = 0.0, runCalls = 0
    var llmInRun = 0.0, flowInRun = 0.0, vocoderInRun = 0.0
    /// Streamed with the LLM in an executor job of its own beside the decoding, then with the stages in turn.
    var firstChunk = 0.0, streamed = 0.0
    var firstChunkInTurn = 0.0, streamedInTurn = 0.0, streamInRun = 0.0
}

struct Report: Encodable {
    var threads: Int
    /// Tokens the LLM drew (its decode steps), then tokens after the silence filter.
    var steps: Int
    var tokens: Int
    var audioSeconds: Double
    var runs: [Run]
}

let option = BenchOptions(usage: "CosyVoiceBench --model DIR --voice DIR --case case.json [--threads N] [--runs N]")

func measure() async throws {
    let model = URL(fileURLWithPath: try option("--model"))
    let voiceFolder = URL(fileURLWithPath: try option("--voice"))
    let input = try JSONDecoder().decode(Case.self, from: Data(contentsOf: URL(fileURLWithPath: try option("--case"))))
    let threads = Int(try option("--threads", "2")) ?? 2
    let runs = Int(try option("--runs", "3")) ?? 3

    var configuration = CosyVoiceSynthesizer.Configuration(samplingSeed: input.samplingSeed, noiseSeed: input.noiseSeed)
    configuration.overlapsStages = true
    configuration.sessionOptions.intraOpThreads = threads
    let engine = try CosyVoiceSynthesizer(models: ModelFolder(url: model), voicesFolder: voiceFolder.deletingLastPathComponent(),
                                          tokenizer: Frontend.loadTokenizer(from: model), configuration: configuration)
    configuration.overlapsStages = false
    let inTurn = try CosyVoiceSynthesizer(models: ModelFolder(url: model), voicesFolder: voiceFolder.deletingLastPathComponent(),
                                          tokenizer: Frontend.loadTokenizer(from: model), configuration: configuration)
    let voice = try VoicePrompt(contentsOf: voiceFolder)
    let prompt = voice.aligned()
    let runtime = try OnnxRuntime.shared()
    let clock = ContinuousClock()
    _ = try engine.synthesize(promptText: input.promptTextTokens, text: input.textTokens, voice: voice)  // warm-up
    _ = try inTurn.synthesize(promptText: input.promptTextTokens, text: input.textTokens, voice: voice)
    func stream(_ engine: CosyVoiceSynthesizer) async throws -> (first: Double, whole: Double) {
        let start = clock.now
        var first: Duration?
        try await engine.streamSynthesis(promptText: input.promptTextTokens, text: input.textTokens, voice: voice) { _ in
            if first == nil { first = clock.now - start }
        }
        return (seconds(first ?? .zero), seconds(clock.now - start))
    }

    var report = Report(threads: threads, steps: 0, tokens: 0, audioSeconds: 0, runs: [])
    for _ in 0..<runs {
        var run = Run()
        runtime.resetStatistics()
        let start = clock.now
        // The stages as the facade runs them, timed one by one.
        var random = SeededRandom(seed: input.samplingSeed)
        let sampled = try engine.languageModel.generate(promptText: input.promptTextTokens, text: input.textTokens,
                                                        promptSpeech: prompt.speechTokens, random: &random)
        let afterLLM = clock.now
        run.llmInRun = seconds(runtime.statistics.duration)
        let tokens = SilenceFilter.filter(sampled)
        let mel = try engine.flow.mel(tokens: tokens, voice: prompt, noise: engine.noise)
        let afterFlow = clock.now
        run.flowInRun = seconds(runtime.statistics.duration) - run.llmInRun
        let audio = try engine.vocoder.audio(for: mel)
        let end = clock.now
        run.vocoderInRun = seconds(runtime.statistics.duration) - run.llmInRun - run.flowInRun
        run.llm = seconds(afterLLM - start)
        run.flow = seconds(afterFlow - afterLLM)
        run.vocoder = seconds(end - afterFlow)
        run.whole = seconds(end - start)
        run.inRun = seconds(runtime.statistics.duration)
        run.runCalls = runtime.statistics.runs
        report.steps = sampled.count
        report.tokens = tokens.count
        report.audioSeconds = Double(audio.count) / Double(Vocoder.sampleRate)

        (run.firstChunk, run.streamed) = try await stream(engine)
        // Time in Run is summed over threads, so it is taken only with the stages in turn.
        runtime.resetStatistics()
        (run.firstChunkInTurn, run.streamedInTurn) = try await stream(inTurn)
        run.streamInRun = seconds(runtime.statistics.duration)
        report.runs.append(run)
    }
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

/// Resident memory in bytes (Linux /proc/self/statm; 0 elsewhere).
func residentBytes() -> Int {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    #else
    return 0
    #endif
}

/// `--decode-steps N`: exactly N greedy decode steps (stop ids masked: `generate`'s `length`), resident memory
/// every 250 steps, against the KV cache's own growth.
func measureMemory(steps: Int) throws {
    let model = URL(fileURLWithPath: try option("--model"))
    let voice = try VoicePrompt(contentsOf: URL(fileURLWithPath: try option("--voice"))).aligned()
    let input = try JSONDecoder().decode(Case.self, from: Data(contentsOf: URL(fileURLWithPath: try option("--case"))))
    let sessions = try ModelFolder(url: model).loadSessions(options: CosyVoiceSynthesizer.Configuration().sessionOptions)
    let llm = LanguageModel(sessions: sessions)
    let text = Array(repeating: input.textTokens, count: steps / 20 / input.textTokens.count + 1).flatMap { $0 }
    var random = SeededRandom(seed: 0)
    var samples: [(step: Int, bytes: Int)] = [(0, residentBytes())]
    var count = 0
    try llm.generate(promptText: input.promptTextTokens, text: Array(text.prefix(steps / 20)),
                     promptSpeech: voice.speechTokens, sampling: .greedy, length: steps, random: &random) { _ in
        count += 1
        if count % 250 == 0 { samples.append((count, residentBytes())) }
    }
    let cachePerStep = 48 * 2 * 64 * 4
    print("decode steps: \(count); KV cache grows \(cachePerStep) bytes per step")
    for sample in samples {
        print(String(format: "step %5d  resident %7.1f MB  cache %6.1f MB", sample.step,
                     Double(sample.bytes) / 1e6, Double(sample.step * cachePerStep) / 1e6))
    }
    if let first = samples.first(where: { $0.step == 500 }), let last = samples.last, last.step > first.step {
        let growth = Double(last.bytes - first.bytes) / Double(last.step - first.step)
        print(String(format: "from step %d to %d: %.0f bytes per step resident (%.2f x the cache's own growth)",
                     first.step, last.step, growth, growth / Double(cachePerStep)))
    }
}

/// `--hop-across-pieces`: a request of two pieces (the case's text twice), streamed with the stages in turn,
/// the second piece's hop either restarting at 25 (Chorus) or carried on from where the first piece left
/// it (upstream keeps `token_hop_len` on the model, doubled up to 100). Reports, per way, the time from
/// the second piece's start to its first audio and to its last, as medians of `--runs` alternating runs.
func measureHopAcrossPieces() throws {
    let model = URL(fileURLWithPath: try option("--model"))
    let voiceFolder = URL(fileURLWithPath: try option("--voice"))
    let input = try JSONDecoder().decode(Case.self, from: Data(contentsOf: URL(fileURLWithPath: try option("--case"))))
    let threads = Int(try option("--threads", "2")) ?? 2
    let runs = Int(try option("--runs", "5")) ?? 5
    var configuration = CosyVoiceSynthesizer.Configuration(samplingSeed: input.samplingSeed, noiseSeed: input.noiseSeed)
    configuration.sessionOptions.intraOpThreads = threads
    let engine = try CosyVoiceSynthesizer(models: ModelFolder(url: model), voicesFolder: voiceFolder.deletingLastPathComponent(),
                                          tokenizer: Frontend.loadTokenizer(from: model), configuration: configuration)
    let voice = try VoicePrompt(contentsOf: voiceFolder).aligned()
    let request = LanguageModel.Request(promptText: input.promptTextTokens, text: input.textTokens,
                                        promptSpeech: voice.speechTokens, seed: input.samplingSeed)
    let clock = ContinuousClock()

    /// One piece streamed with `schedule`; the time to its first audio and to its end, the chunk sizes, and
    /// the schedule as the piece left it.
    func piece(_ schedule: TokenHopSchedule) throws -> (first: Double, whole: Double, chunks: [Int], left: TokenHopSchedule) {
        var filter = SilenceFilter()
        var streaming = TokenStreaming(decoder: CosyVoiceTokenDecoder(flow: engine.flow, vocoder: engine.vocoder,
                                                                      voice: voice, noise: engine.noise),
                                       schedule: schedule)
        var chunks: [Int] = []
        var first: Duration?
        let start = clock.now
        func emit(_ audio: [Float]) {
            guard !audio.isEmpty else { return }
            if first == nil { first = clock.now - start }
            chunks.append(audio.count)
        }
        _ = try engine.languageModel.generate(request) { token in
            if filter.admit(token) { emit(try streaming.add(token)) }
        }
        emit(try streaming.finish())
        return (seconds(first ?? .zero), seconds(clock.now - start), chunks, streaming.schedule)
    }

    let fresh = TokenHopSchedule(promptTokens: voice.speechTokens.count)
    _ = try piece(fresh)  // warm-up
    var restart: [(Double, Double)] = [], carried: [(Double, Double)] = []
    var chunkSizes: [String: [Int]] = [:]
    for _ in 0..<runs {
        let left = try piece(fresh).left
        let second = try piece(fresh)
        restart.append((second.first, second.whole))
        chunkSizes["restart"] = second.chunks
        // Upstream's second piece: token_offset back at 0, the hop as the first piece left it, the prompt
        // padding rounded to that hop.
        _ = try piece(fresh)
        let kept = TokenHopSchedule(firstHop: left.nextHop, maximumHop: 100, growth: 2, lookahead: FlowMatching.lookahead,
                                    promptTokens: voice.speechTokens.count)
        let upstream = try piece(kept)
        carried.append((upstream.first, upstream.whole))
        chunkSizes["carried (first hop \(left.nextHop))"] = upstream.chunks
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    print("second piece, \(runs) runs, \(threads) intra-op threads; chunk samples \(chunkSizes)")
    for (name, times) in [("restart at 25", restart), ("carried hop", carried)] {
        print(String(format: "  %@: first audio %.1f ms, whole piece %.1f ms", name,
                     median(times.map(\.0)) * 1000, median(times.map(\.1)) * 1000))
    }
}

do {
    if CommandLine.arguments.contains("--hop-across-pieces") {
        try measureHopAcrossPieces()
        exit(0)
    }
    if let steps = CommandLine.arguments.firstIndex(of: "--decode-steps").flatMap({ Int(CommandLine.arguments[$0 + 1]) }) {
        try measureMemory(steps: steps)
        exit(0)
    }
    try await measure()
} catch {
    FileHandle.standardError.write(Data("CosyVoiceBench: \(error)\n".utf8))
    exit(1)
}
