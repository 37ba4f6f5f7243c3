import ChorusAudio
import ChorusDSP
import Foundation

// The Swift side of bench/dsp_bench.py, which runs it and the Python references in one run.
//   dsp-bench features KIND IN.wav REPEATS [OUT.npy]  prints the best time in seconds (and frames)
//   dsp-bench resample IN.wav RATE OUT.wav REPEATS   prints the best time, writes float32 output

func bestTime(_ repeats: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<max(1, repeats) {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return best
}

let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

switch arguments.dropFirst().first {
case "features":
    guard arguments.count == 5 || arguments.count == 6, let kind = FeatureKind(rawValue: arguments[2]), let repeats = Int(arguments[4]) else {
        fail("usage: dsp-bench features KIND IN.wav REPEATS")
    }
    let extractor = kind.extractor
    let (samples, rate) = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: arguments[3]))
    let audio = try Resampler.resample(samples, from: rate, to: extractor.sampleRate)
    var features = Matrix(rows: 0, columns: 0)
    let seconds = bestTime(repeats) { features = extractor(audio) }
    if arguments.count == 6 {
        try NPYFile(shape: [features.rows, features.columns], values: features.values)
            .write(to: URL(fileURLWithPath: arguments[5]))
    }
    print(String(format: "%.6f %d", seconds, features.rows))
case "resample":
    guard arguments.count == 6, let target = Int(arguments[3]), let repeats = Int(arguments[5]) else {
        fail("usage: dsp-bench resample IN.wav RATE OUT.wav REPEATS")
    }
    let (samples, rate) = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: arguments[2]))
    var output: [Float] = []
    let seconds = try bestTime(repeats) { output = try Resampler.resample(samples, from: rate, to: target) }
    try WAVWriter.write(output, sampleRate: target, format: .float32, to: URL(fileURLWithPath: arguments[4]))
    print(String(format: "%.6f %d", seconds, output.count))
default:
    fail("usage: dsp-bench features|resample ...")
}
