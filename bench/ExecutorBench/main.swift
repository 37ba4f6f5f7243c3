// ExecutorBench: how long a trivial task on Swift's shared concurrency pool waits while two long
// Piper syntheses run, with the model calls on the InferenceExecutor (what engines do now) beside the
// same calls made synchronously inside tasks (what they did before, blocking the pool's threads).
// Rounds of the two modes are interleaved; the report gives each mode's probe latencies and the ratio.
//
//   swift build -c release --product ExecutorBench && .build/release/ExecutorBench --rounds 3
import ChorusONNX
import ChorusPiper
import ChorusSpeech
import Foundation

struct Options {
    var rounds = 3
    var textFile = "bench/tts_paragraph.txt"
    var model = PiperSynthesizer.defaultModel()

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let flag = rest.popFirst(), let value = rest.popFirst() {
            switch flag {
            case "--rounds": rounds = Int(value) ?? rounds
            case "--text-file": textFile = value
            case "--model": model = URL(fileURLWithPath: value)
            default: FileHandle.standardError.write(Data("ignoring unknown option \(flag)\n".utf8))
            }
        }
    }
}

enum Mode: String, CaseIterable {
    case executor = "executor"
    case sharedPool = "shared pool (blocking)"
}

struct Round {
    var probes: [Double] = []
    var synthesisSeconds = 0.0
}

let options = Options(CommandLine.arguments.dropFirst())
let text = try String(contentsOfFile: options.textFile, encoding: .utf8)
let piper = try PiperSynthesizer(modelPath: options.model)
let sentences = try piper.modelInputs(for: text)
let session = try InferenceSession(modelPath: options.model.path, options: PiperSynthesizer.defaultSessionOptions)
let clock = ContinuousClock()

func feeds(_ ids: [Int64]) throws -> [String: Tensor] {
    ["input": try Tensor(ids, shape: [1, ids.count]), "input_lengths": try Tensor(scalar: Int64(ids.count)),
     "scales": try Tensor([0.667, 1, 0.8] as [Float], shape: [3])]
}

/// A model call in the calling thread (in an async context `run` is the executor's; here it cannot be).
func blockingRun(_ feeds: [String: Tensor]) throws {
    _ = try session.run(feeds)
}

/// One synthesis of the whole text, each sentence's model call made the way `mode` makes it.
func synthesis(_ mode: Mode) async throws {
    for ids in sentences {
        switch mode {
        case .executor: _ = try await session.run(feeds(ids))
        case .sharedPool: try blockingRun(feeds(ids))
        }
    }
}

func measure(_ mode: Mode) async throws -> Round {
    var round = Round()
    let started = clock.now
    let jobs = (0..<2).map { _ in Task { try await synthesis(mode) } }
    let done = Task { for job in jobs { try await job.value } }
    // Probes every 5 ms until both syntheses end: the time from starting a trivial task to its end.
    let finished = ManagedAtomicFlag()
    Task { _ = try? await done.value; finished.set() }
    while !finished.isSet {
        let probeStart = clock.now
        _ = await Task.detached { 1 }.value
        round.probes.append((clock.now - probeStart).milliseconds)
        try await Task.sleep(for: .milliseconds(5))
    }
    try await done.value
    round.synthesisSeconds = (clock.now - started).milliseconds / 1000
    return round
}

final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

extension Duration {
    var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) * 1e-15
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
}

_ = try await synthesis(.executor)  // warm-up
var results: [Mode: [Round]] = [:]
for _ in 0..<options.rounds {
    for mode in Mode.allCases { results[mode, default: []].append(try await measure(mode)) }
}
print("two concurrent Piper syntheses of \(sentences.count) sentences, \(options.rounds) interleaved rounds,"
      + " \(ProcessInfo.processInfo.activeProcessorCount) cores")
var worst: [Mode: Double] = [:]
for mode in Mode.allCases {
    let rounds = results[mode] ?? []
    let probes = rounds.flatMap(\.probes)
    worst[mode] = probes.max() ?? .nan
    let synthesis = rounds.map(\.synthesisSeconds).sorted()[rounds.count / 2]
    print(String(format: "%@: probes %4d  p50 %.3f ms  p95 %.3f ms  max %.3f ms  syntheses %.2f s (median)",
                 mode.rawValue as NSString, probes.count, percentile(probes, 0.5), percentile(probes, 0.95),
                 worst[mode] ?? .nan, synthesis))
}
print(String(format: "worst probe latency, executor / shared pool: %.6f",
             (worst[.executor] ?? .nan) / (worst[.sharedPool] ?? .nan)))
