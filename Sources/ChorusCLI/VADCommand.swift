import ArgumentParser
import ChorusAudio
import Foundation
import ChorusVAD

/// `chorus vad`: where the speech is in a WAV file, by the Silero voice activity detector.
struct VADCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Find the speech in a WAV file (Silero VAD).",
        discussion: """
            Prints one segment per line as START-END in seconds, or with --json an array of \
            {"start": seconds, "end": seconds}. Audio at rates other than 16 or 8 kHz is resampled to 16 kHz.

            Examples:
              chorus vad talk.wav
              chorus vad talk.wav --json --min-silence-ms 300
            """
    )

    @Argument(help: "The WAV file to analyse; - reads one from standard input.")
    var file: String

    @Flag(help: "Print the segments as JSON.")
    var json = false

    @Option(help: "Speech probability at or above which a window is speech.")
    var threshold: Double = 0.5

    @Option(help: "Speech shorter than this many milliseconds is dropped.")
    var minSpeechMs: Int = 250

    @Option(help: "Silence shorter than this many milliseconds does not end a segment.")
    var minSilenceMs: Int = 100

    @Option(help: "Milliseconds added before and after each segment.")
    var padMs: Int = 30

    @Option(help: "A silero_vad.onnx to use instead of the installed one.")
    var model: String?

    private var segmenter: SpeechSegmenter {
        SpeechSegmenter(threshold: threshold, minSpeechMilliseconds: minSpeechMs,
                        minSilenceMilliseconds: minSilenceMs, speechPadMilliseconds: padMs)
    }

    /// The flag that sets each segmenter parameter, to name it in errors.
    private static let flags = ["threshold": "--threshold", "minSpeechMilliseconds": "--min-speech-ms",
                                "minSilenceMilliseconds": "--min-silence-ms", "speechPadMilliseconds": "--pad-ms"]

    func validate() throws {
        do {
            try segmenter.validate()
        } catch VADError.invalidParameter(let name, let value, let reason) {
            let shown = value.rounded() == value ? String(Int(value)) : String(value)
            throw ValidationError("\(Self.flags[name] ?? name) \(shown) is invalid: \(reason).")
        }
    }

    func run() async throws {
        let segmenter = self.segmenter
        let (samples, rate) = try readAudio()
        let vadRate = rate == 8000 ? 8000 : 16000
        let audio = rate == vadRate || samples.isEmpty ? samples : try Resampler.resample(samples, from: rate, to: vadRate)
        var vad = try SileroVAD(modelPath: model, sampleRate: vadRate)
        let started = Date()
        let segments = try vad.speechSegments(in: audio, segmenter: segmenter)
        let elapsed = Date().timeIntervalSince(started)
        if json {
            print(Self.json(segments))
        } else if !segments.isEmpty {
            print(segments.map(Self.line).joined(separator: "\n"))
        }
        let seconds = Double(audio.count) / Double(vadRate)
        FileHandle.standardError.write(Data(String(
            format: "%d segments in %.2f s of audio, analysed in %.3f s (%.0fx real time)\n",
            segments.count, seconds, elapsed, seconds / max(elapsed, 1e-9)).utf8))
    }

    /// The file's channels mixed to mono, and its rate; `-` is a WAV file on standard input.
    private func readAudio() throws -> (samples: [Float], sampleRate: Int) {
        guard file == "-" else { return try WAVFile.readMono(contentsOf: URL(fileURLWithPath: file)) }
        let bytes = try BoundedInput.standardInput(
            limit: BoundedInput.audioLimit,
            tooLarge: "The audio on standard input is over \(BoundedInput.megabytes(BoundedInput.audioLimit)); give the audio as a file instead.")
        guard !bytes.isEmpty else { throw WAVStreamDecoder.Failure.noAudio(source: "standard input") }
        return try bytes.withUnsafeBytes { try WAVFile.decodeMono($0, path: "standard input", limits: .file) }
    }

    static func line(_ segment: SpeechSegment) -> String {
        String(format: "%.3f-%.3f", segment.startTime, segment.endTime)
    }

    static func json(_ segments: [SpeechSegment]) -> String {
        let items = segments.map { String(format: "{\"start\": %.3f, \"end\": %.3f}", $0.startTime, $0.endTime) }
        return "[" + items.joined(separator: ", ") + "]"
    }
}
