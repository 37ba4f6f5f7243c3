// chorus-bench: times Chorus's engines end to end (text in, samples out) and reports how much
// of that time is spent inside ONNX Runtime's Run, as JSON for bench/tts_bench.py, which runs
// the same model inputs through Python's onnxruntime in the same run for the ratio.
import Foundation
import ChorusKokoro
import ChorusONNX
import ChorusPiper
import ChorusSpeech

struct Arguments {
    var engine = "kokoro"
    var textFile = ""
    var threads = 2
    var runs = 3
    var inputsOut: String?
    var idsPerLine: String?

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchError.usage("\(flag) needs a value") }
            switch flag {
            case "--engine": engine = value
            case "--text-file": textFile = value
            case "--threads": threads = Int(value) ?? threads
            case "--runs": runs = Int(value) ?? runs
            case "--inputs-out": inputsOut = value
            case "--ids-per-line": idsPerLine = value
            default: throw BenchError.usage("unknown option \(flag)")
            }
        }
        if textFile.isEmpty { throw BenchError.usage("--text-file is required") }
    }
}

enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    var description: String {
        switch self {
        case .usage(let message):
            "\(message)\nusage: chorus-bench --engine kokoro|piper --text-file FILE [--threads N] [--runs N] [--inputs-out FILE.json] [--ids-per-line FILE.json]"
        }
    }
}

struct Report: Encodable {
    var engine: String
    var threads: Int
    var runs: Int
    var audioSeconds: Double
    var wallSeconds: [Double]
    var runSeconds: [Double]
    var modelCalls: Int
}

func measure() async throws {
    let arguments = try Arguments(CommandLine.arguments.dropFirst())
    let text = try String(contentsOfFile: arguments.textFile, encoding: .utf8)
    let synthesizer: any SpeechSynthesizer
    let inputs: [[Int64]]
    /// The engine's own session options with the thread count asked for.
    func options(_ defaults: SessionOptions) -> SessionOptions {
        var options = defaults
        options.intraOpThreads = arguments.threads
        return options
    }
    switch arguments.engine {
    case "kokoro":
        let kokoro = try KokoroSynthesizer(options: options(KokoroSynthesizer.defaultSessionOptions))
        (synthesizer, inputs) = (kokoro, try kokoro.modelInputs(for: text))
    case "piper":
        let piper = try PiperSynthesizer(options: options(PiperSynthesizer.defaultSessionOptions))
        (synthesizer, inputs) = (piper, try piper.modelInputs(for: text))
    default:
        throw BenchError.usage("unknown engine \(arguments.engine)")
    }
    if let path = arguments.inputsOut {
        try JSONEncoder().encode(inputs).write(to: URL(fileURLWithPath: path))
    }
    if let path = arguments.idsPerLine {
        // The model inputs of each line of the text on its own, for comparing front ends sentence by sentence.
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        let perLine: [[[Int64]]] = try lines.map { line in
            switch synthesizer {
            case let kokoro as KokoroSynthesizer: try kokoro.modelInputs(for: line)
            case let piper as PiperSynthesizer: try piper.modelInputs(for: line)
            default: []
            }
        }
        try JSONEncoder().encode(perLine).write(to: URL(fileURLWithPath: path))
        return
    }

    let runtime = try OnnxRuntime.shared()
    let request = SynthesisRequest(text: text)
    _ = try await synthesizer.synthesize(request)  // warm-up: first-run allocations and caches

    let clock = ContinuousClock()
    var report = Report(engine: arguments.engine, threads: arguments.threads, runs: arguments.runs,
                        audioSeconds: 0, wallSeconds: [], runSeconds: [], modelCalls: inputs.count)
    for _ in 0..<arguments.runs {
        runtime.resetStatistics()
        let started = clock.now
        let samples = try await synthesizer.synthesize(request)
        let wall = clock.now - started
        report.audioSeconds = Double(samples.count) / Double(synthesizer.sampleRate)
        report.wallSeconds.append(wall.seconds)
        report.runSeconds.append(runtime.statistics.duration.seconds)
    }
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

do {
    try await measure()
} catch {
    FileHandle.standardError.write(Data("chorus-bench: \(error)\n".utf8))
    exit(1)
}
