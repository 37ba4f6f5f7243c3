// ChatterboxBench: times Chorus's Chatterbox Turbo stages on one text (T3's decode loop, with the time inside
// ONNX Runtime's Run apart; the conditional decoder; the engine's chunked stream, first chunk against whole)
// and prints JSON for bench/chatterbox_bench.py, which runs the Python loop on the same graphs in the same run.
import BenchSupport
import ChorusChatterbox
import ChorusGeneration
import ChorusONNX
import ChorusSpeech
import Foundation

struct Report: Encodable {
    var threads: Int
    var steps: Int
    var samples: Int
    var chunks: Int
    var tokens: [Int]
    var runs: [TokenEngineRun]
}

let option = BenchOptions(usage: "ChatterboxBench --model DIR --voice DIR --text TEXT --stream-text TEXT [--seed N] [--threads N] [--runs N]")

let model = URL(fileURLWithPath: try option("--model"))
let voiceFolder = URL(fileURLWithPath: try option("--voice"))
let text = try option("--text")
let streamText = try option("--stream-text")
let seed = UInt64(try option("--seed", "0")) ?? 0
let threads = Int(try option("--threads", "2")) ?? 2
let runs = Int(try option("--runs", "3")) ?? 3

var options = SessionOptions()
options.intraOpThreads = threads
let encoder = try ChatterboxTextEncoder(folder: model)
let language = try LanguageModel(
    embed: InferenceSession(modelPath: model.appendingPathComponent("embed_tokens.onnx").path, options: options),
    language: InferenceSession(modelPath: model.appendingPathComponent("language_model.onnx").path, options: options))
let decoder = try ConditionalDecoder(
    session: InferenceSession(modelPath: model.appendingPathComponent("conditional_decoder.onnx").path, options: options))
let voice = try VoiceConditioning(folder: voiceFolder)
let runtime = try OnnxRuntime.shared()
let clock = ContinuousClock()
let prompt = LanguageModel.Prompt(voice: voice, ids: try encoder.ids(for: text), seed: seed)

// The engine over a copy of the folder with the voice installed, the chunk cache off, short chunks.
let engineFolder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-bench-\(UUID().uuidString)")
try FileManager.default.copyItem(at: model, to: engineFolder)
defer { try? FileManager.default.removeItem(at: engineFolder) }
try FileManager.default.createDirectory(at: engineFolder.appendingPathComponent("voices"), withIntermediateDirectories: true)
try FileManager.default.copyItem(at: voiceFolder, to: engineFolder.appendingPathComponent("voices/bench"))
let engine = try ChatterboxSynthesizer(folder: engineFolder, configuration: .init(
    seed: seed, chunkCharacters: 50, firstChunkCharacters: 50, chunkCacheLimit: 0))
try await engine.prepare()

/// Resident memory of this process in bytes (Linux; 0 elsewhere).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

if CommandLine.arguments.contains("--memory") {
    // upstream's whole 1 + 1000 draws with the stop token masked, resident memory read at every draw, alone
    // in this process: the cache sits in two buffers sized for the longest utterance, so only it may grow.
    var resident = [Int](repeating: 0, count: 1 + LanguageModel.maximumNewTokens)
    var step = 0
    let stop = EmbeddingIDs.stopOfSpeech
    let tokens = try language.generate(
        prompt, steps: [SuppressStopTokens(stop..<(stop + 1), until: 5_000), Temperature(0.8), TopK(1000), TopP(0.95), CategoricalDraw()]
    ) { _ in
        resident[step] = residentBytes()
        step += 1
    }
    let early = resident[100..<150].max() ?? 0, late = resident[950..<1000].min() ?? 0
    print("{\"draws\": \(tokens.count), \"earlyKiB\": \(early / 1024), \"lateKiB\": \(late / 1024), \"growthKiB\": \((late - early) / 1024)}")
    exit(0)
}

_ = try decoder.decode(language.generate(prompt) { _ in }, voice: voice)  // warm-up
var report = Report(threads: threads, steps: 0, samples: 0, chunks: 0, tokens: [], runs: [])
for _ in 0..<runs {
    var run = TokenEngineRun()
    runtime.resetStatistics()
    let start = clock.now
    let tokens = try language.generate(prompt) { _ in }
    let generated = clock.now
    run.generateInRun = seconds(runtime.statistics.duration)
    let audio = try decoder.decode(tokens, voice: voice)
    let end = clock.now
    run.generate = seconds(generated - start)
    run.decode = seconds(end - generated)
    run.whole = seconds(end - start)
    report.steps = tokens.count
    report.tokens = tokens
    report.samples = audio.count

    var first: Duration?
    var chunks = 0
    let streamStart = clock.now
    for try await _ in engine.stream(SynthesisRequest(text: streamText, voiceID: "bench")) {
        if first == nil { first = clock.now - streamStart }
        chunks += 1
    }
    run.streamed = seconds(clock.now - streamStart)
    run.firstChunk = seconds(first ?? clock.now - streamStart)
    report.chunks = chunks
    report.runs.append(run)
}
print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
