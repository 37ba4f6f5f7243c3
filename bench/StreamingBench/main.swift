// StreamingBench: streamed against whole synthesis with the real engines, on the clocked null sink
// (which consumes in real time, like a sound card, without one).
//
//   swift run -c release StreamingBench latency [--engine kokoro|piper] [--runs 3]
//   swift run -c release StreamingBench soak --engine piper [--minutes 10]
//
// latency: time from the first text to the first audio, streamed (sentence by sentence) and whole
//          (synthesise everything, then play), on the first five sentences of bench/tts_paragraph.txt;
//          and the gaps between scheduled pieces while the streamed paragraph plays.
// soak:    streams the paragraph over and over in real time; prints resident memory each minute.
import Foundation
import ChorusKokoro
import ChorusPiper
import ChorusSpeech
import ChorusStreaming
import ChorusText

enum BenchError: Error { case usage(String) }

func load(_ engine: String) throws -> any SpeechSynthesizer {
    switch engine {
    case "kokoro": return try KokoroSynthesizer()
    case "piper": return try PiperSynthesizer()
    default: throw BenchError.usage("unknown engine \(engine)")
    }
}

func paragraph(sentences: Int) throws -> String {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(contentsOf: folder.appendingPathComponent("tts_paragraph.txt"), encoding: .utf8)
    var segmenter = SentenceSegmenter()
    return (segmenter.append(text) + segmenter.finish()).prefix(sentences).joined(separator: " ")
}

/// Resident memory of this process in MiB, from /proc.
func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return .nan }
    return kilobytes / 1024
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// Streams `text` as one quick burst of word-sized pieces, the way an LLM sends it; returns the
/// time to the first played audio and the sink's report.
func streamOnce(_ synthesizer: any SpeechSynthesizer, text: String) async throws -> (Duration, ClockedNullSinkReport, Duration) {
    let sink = ClockedNullSink()
    let controller = StreamingTTSController(provider: synthesizer.streamingProvider(), sink: sink)
    let clock = ContinuousClock()
    try await controller.start()
    let started = clock.now
    let firstAudio = Task { () -> Duration? in
        for await status in controller.status {
            if case .playing = status { return clock.now - started }
        }
        return nil
    }
    for word in text.split(separator: " ", omittingEmptySubsequences: false) { controller.yield(text: word + " ") }
    controller.finish()
    try await controller.waitUntilFinished()
    let total = clock.now - started
    return (await firstAudio.value ?? total, sink.report, total)
}

func latency(engines: [String], runs: Int) async throws {
    let text = try paragraph(sentences: 5)
    print("text: \(text.count) characters, 5 sentences; \(runs) runs each; median shown")
    for engine in engines {
        let synthesizer = try load(engine)
        _ = try await synthesizer.synthesize(SynthesisRequest(text: "Warm up."))
        var whole: [Double] = [], streamed: [Double] = [], gaps: [Double] = [], audio = 0.0
        for _ in 0..<runs {
            let clock = ContinuousClock()
            let start = clock.now
            let samples = try await synthesizer.synthesize(SynthesisRequest(text: text))
            whole.append((clock.now - start).milliseconds)
            audio = Double(samples.count) / Double(synthesizer.sampleRate)
            let (first, report, _) = try await streamOnce(synthesizer, text: text)
            streamed.append(first.milliseconds)
            gaps += report.gaps.map(\.milliseconds)
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let over = gaps.filter { $0 >= 5 }.count
        print(String(format: "%@: %.1f s of audio; first audio streamed %.0f ms, whole %.0f ms (%.1fx sooner); "
                     + "gaps between scheduled pieces: %d, max %.2f ms, %d >= 5 ms",
                     engine, audio, median(streamed), median(whole), median(whole) / median(streamed),
                     gaps.count, gaps.max() ?? 0, over))
    }
}

func soak(engine: String, minutes: Int) async throws {
    let synthesizer = try load(engine)
    let text = try paragraph(sentences: 6)
    let sink = ClockedNullSink()
    let controller = StreamingTTSController(provider: synthesizer.streamingProvider(), sink: sink)
    try await controller.start()
    let clock = ContinuousClock()
    let started = clock.now
    print(String(format: "%@ soak: start %.1f MiB", engine, residentMiB()))
    // Text is tiny next to audio; give plenty up front and let the pipeline pull it.
    for _ in 0..<(minutes * 8 + 8) { controller.yield(text: text + " ") }
    controller.finish()
    let playing = Task { try await controller.waitUntilFinished() }
    for minute in 1...minutes {
        try await clock.sleep(until: started.advanced(by: .seconds(60 * minute)))
        let report = sink.report
        let late = report.gaps.filter { $0 >= .milliseconds(5) }.count
        print(String(format: "%@ soak: %2d min: %.1f MiB resident, %.0f s played, %d gaps >= 5 ms, max gap %.1f ms",
                     engine, minute, residentMiB(), Double(report.playedSamples) / Double(synthesizer.sampleRate),
                     late, (report.gaps.max() ?? .zero).milliseconds))
    }
    await controller.cancel()
    _ = await playing.result
}

let arguments = Array(CommandLine.arguments.dropFirst())
var options: [String: String] = [:]
var index = 1
while index + 1 < arguments.count {
    options[arguments[index]] = arguments[index + 1]
    index += 2
}
switch arguments.first {
case "latency":
    try await latency(engines: options["--engine"].map { [$0] } ?? ["kokoro", "piper"],
                      runs: options["--runs"].flatMap(Int.init) ?? 3)
case "soak":
    try await soak(engine: options["--engine"] ?? "piper", minutes: options["--minutes"].flatMap(Int.init) ?? 10)
default:
    print("usage: StreamingBench latency [--engine kokoro|piper] [--runs N] | soak --engine E [--minutes N]")
}
