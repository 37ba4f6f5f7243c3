// NeuTTSBench: times Chorus's NeuTTS stages on one prompt (the backbone's decode loop, with the time
// inside ONNX Runtime's Run apart; NeuCodec decoding; upstream's streaming, first chunk against whole)
// and prints JSON for bench/neutts_bench.py, which runs the Python path on the same graphs in the same run.
import BenchSupport
import ChorusNeuTTS
import ChorusONNX
import ChorusSpeech
import ChorusText
import Foundation

struct Case: Decodable {
    var prompt_ids: [Int]
    var seed: UInt64
}

struct Report: Encodable {
    var threads: Int
    var steps: Int
    var codes: Int
    var runs: [TokenEngineRun]
}

let option = BenchOptions(usage: "NeuTTSBench --model DIR --case case.json --reference ref.i32 [--threads N] [--runs N]")

let model = URL(fileURLWithPath: try option("--model"))
let input = try JSONDecoder().decode(Case.self, from: Data(contentsOf: URL(fileURLWithPath: try option("--case"))))
let referenceData = try Data(contentsOf: URL(fileURLWithPath: try option("--reference")))
let reference = referenceData.withUnsafeBytes { raw in
    (0..<(referenceData.count / 4)).map { Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self))) }
}
let threads = Int(try option("--threads", "2")) ?? 2
let runs = Int(try option("--runs", "3")) ?? 3

var options = SessionOptions()
options.intraOpThreads = threads
let tokenizerURL = model.appendingPathComponent("tokenizer.json")
let prompt = try PromptBuilder(tokenizer: BPETokenizer(tokenizerJSON: tokenizerURL), source: tokenizerURL.path)
let backbone = try Backbone(session: InferenceSession(modelPath: model.appendingPathComponent("backbone.onnx").path, options: options),
                            stopToken: prompt.stopToken)
let codec = try CodecDecoder(session: InferenceSession(modelPath: model.appendingPathComponent("decoder.onnx").path, options: options))
let runtime = try OnnxRuntime.shared()
let clock = ContinuousClock()
let request = Backbone.Request(ids: input.prompt_ids, seed: input.seed)

_ = try codec.decode(prompt.codes(in: backbone.generate(request) { _ in }))  // warm-up
var report = Report(threads: threads, steps: 0, codes: 0, runs: [])
for _ in 0..<runs {
    var run = TokenEngineRun()
    runtime.resetStatistics()
    let start = clock.now
    let tokens = try backbone.generate(request) { _ in }
    let generated = clock.now
    run.generateInRun = seconds(runtime.statistics.duration)
    let codes = prompt.codes(in: tokens)
    _ = try codec.decode(codes)
    let end = clock.now
    run.generate = seconds(generated - start)
    run.decode = seconds(end - generated)
    run.whole = seconds(end - start)
    report.steps = tokens.count
    report.codes = codes.count

    var streaming = TokenStreaming(decoder: StreamingCodecDecoder(codec: codec, referenceCodes: reference),
                                   schedule: StreamingCodecDecoder.schedule)
    var first: Duration?
    let streamStart = clock.now
    _ = try backbone.generate(request) { token in
        guard let code = prompt.code(of: token) else { return }
        if !(try streaming.add(code)).isEmpty, first == nil { first = clock.now - streamStart }
    }
    _ = try streaming.finish()
    run.streamed = seconds(clock.now - streamStart)
    run.firstChunk = seconds(first ?? clock.now - streamStart)
    report.runs.append(run)
}
print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
