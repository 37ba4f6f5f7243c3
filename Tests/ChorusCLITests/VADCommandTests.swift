import ChorusAudio
import ChorusModels
import Foundation
import Testing

/// The generated speech clips with known silences, and the Python `silero-vad` package's segments on them
/// (scripts/testdata/make_vad_testdata.py).
enum PauseClips {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusVADTests/Resources")

    struct Clip: Decodable {
        var file: String
        var sample_rate: Int
        /// Where each sentence's audible samples begin and end; between them lie the inserted silences.
        var truth: [[Int]]
        /// `get_speech_timestamps` with the defaults.
        var segments: [[Int]]

        var path: String { resources.appendingPathComponent(file).path }
        func seconds(_ pairs: [[Int]]) -> [[Double]] { pairs.map { $0.map { Double($0) / Double(sample_rate) } } }
    }

    private struct Golden: Decodable { var clips: [String: Clip] }

    static let clips: [String: Clip] = try! JSONDecoder().decode(
        Golden.self, from: Data(contentsOf: resources.appendingPathComponent("speech_pauses.json"))).clips

    /// Whether scripts/setup.sh installed Silero where `chorus vad` looks for it.
    static let sileroInstalled: Bool = {
        FileManager.default.fileExists(atPath: ModelStore.current.folder(named: "silero-vad").path + "/silero_vad.onnx")
    }()
}

/// `START-END` lines in seconds.
func parseSegmentLines(_ text: String) -> [[Double]] {
    text.split(separator: "\n").map { $0.split(separator: "-").compactMap { Double($0) } }
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && PauseClips.sileroInstalled,
                "needs the chorus binary and Silero VAD (scripts/setup.sh)"))
struct VADCommandTests {
    /// One segment per sentence, each within 100 ms of the truth, none reaching into the middle of
    /// an inserted silence, and the Python package's segments to the window (32 ms).
    func expectSentences(_ segments: [[Double]], clip: PauseClips.Clip, tolerance: Double = 0.1) {
        let truth = clip.seconds(clip.truth)
        #expect(segments.count == truth.count, "\(segments)")
        for (segment, sentence) in zip(segments, truth) {
            #expect(abs(segment[0] - sentence[0]) <= tolerance, "\(segment) vs truth \(sentence)")
            #expect(abs(segment[1] - sentence[1]) <= tolerance, "\(segment) vs truth \(sentence)")
        }
        for (before, after) in zip(truth, truth.dropFirst()) {
            let middle = (before[1] + after[0]) / 2
            #expect(!segments.contains { $0[0] <= middle && middle <= $0[1] }, "speech found in the silence at \(middle) s")
        }
    }

    @Test(arguments: ["piper-16000", "kokoro-16000", "espeak-8000"])
    func segmentsAsTextAndJSON(clipName: String) async throws {
        let clip = PauseClips.clips[clipName]!
        let text = try await ChorusProcess.running(["vad", clip.path])
        #expect(text.status == 0, "\(text.standardError)")
        let lines = parseSegmentLines(text.standardOutput)
        let python = clip.seconds(clip.segments)
        let window = 0.032  // one window: 512 samples at 16 kHz, 256 at 8 kHz
        #expect(lines.count == python.count)
        for (mine, theirs) in zip(lines, python) {
            #expect(abs(mine[0] - theirs[0]) <= window && abs(mine[1] - theirs[1]) <= window, "\(mine) vs Python \(theirs)")
        }
        if clipName != "espeak-8000" { expectSentences(lines, clip: clip) }  // espeak's fade: see SileroVADTests
        #expect(text.standardError.contains("\(lines.count) segments in"))

        let json = try await ChorusProcess.running(["vad", clip.path, "--json"])
        #expect(json.status == 0)
        let objects = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Double]]
        #expect(objects?.map { [$0["start"]!, $0["end"]!] } == lines)
    }

    /// A 44.1 kHz stereo copy is mixed and resampled to 16 kHz and finds the same sentences.
    @Test func otherRatesAndStereoAreConvertedFirst() async throws {
        let clip = PauseClips.clips["piper-16000"]!
        let (samples, _) = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: clip.path))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stereo = folder.appendingPathComponent("stereo44k.wav")
        try WAVWriter.write(try Resampler.resample(samples, from: 16000, to: 44100).flatMap { [$0, $0] },
                            sampleRate: 44100, channels: 2, to: stereo)
        let result = try await ChorusProcess.running(["vad", stereo.path])
        #expect(result.status == 0, "\(result.standardError)")
        expectSentences(parseSegmentLines(result.standardOutput), clip: clip)
    }

    @Test func readsAWAVFromStandardInput() async throws {
        let clip = PauseClips.clips["piper-16000"]!
        let file = try await ChorusProcess.running(["vad", clip.path])
        let piped = try await ChorusProcess.running(["vad", "-"], input: try Data(contentsOf: URL(fileURLWithPath: clip.path)))
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(piped.standardOutput == file.standardOutput)
    }

    @Test func emptyAudioHasNoSegments() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.wav")
        try WAVWriter.write([], sampleRate: 16000, to: empty)
        let text = try await ChorusProcess.running(["vad", empty.path])
        #expect(text.status == 0)
        #expect(text.standardOutput == "")
        let json = try await ChorusProcess.running(["vad", empty.path, "--json"])
        #expect(json.standardOutput == "[]\n")
    }
}

/// Misuse of `chorus vad`: a message naming the thing and what to do, a non-zero status, no crash.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "chorus binary not built"))
struct VADCommandErrorTests {
    func expectFailure(_ arguments: [String], input: Data? = nil, status: Int32 = 1, saying phrases: [String]) async throws {
        let result = try await ChorusProcess.running(arguments, input: input)
        #expect(!result.crashed, "\(arguments) crashed: \(result.standardError)")
        #expect(result.status == status, "\(arguments): \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        for phrase in phrases {
            #expect(result.standardError.contains(phrase), "\(arguments): \(result.standardError)")
        }
    }

    @Test func badFilesAndAMissingModelAreNamed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = PauseClips.clips["piper-16000"]!.path
        let truncated = folder.appendingPathComponent("truncated.wav")
        try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(5000).write(to: truncated)
        let text = folder.appendingPathComponent("notes.wav")
        try Data("not audio at all".utf8).write(to: text)
        try await expectFailure(["vad", truncated.path], saying: ["\(truncated.path) is truncated", "Re-copy or re-record"])
        try await expectFailure(["vad", text.path], saying: ["\(text.path) is not a usable WAV file"])
        try await expectFailure(["vad", folder.appendingPathComponent("none.wav").path],
                                saying: ["Cannot read \(folder.path)/none.wav: no such file or folder"])
        try await expectFailure(["vad", folder.path], saying: ["Cannot read \(folder.path): it is a folder, not a file"])
        try await expectFailure(["vad", "-"], input: Data(), saying: ["No audio arrived on standard input"])
        try await expectFailure(["vad", clip, "--model", "/nonexistent/silero_vad.onnx"],
                          saying: ["The Silero VAD model is missing: /nonexistent/silero_vad.onnx not found", "chorus models pull silero-vad"])
        // Another ONNX model where Silero should be.
        let encoder = ToneModels.folder + "/encoder_T80.onnx"
        try await expectFailure(["vad", clip, "--model", encoder],
                          saying: ["\(encoder) is not a Silero VAD model Chorus can run", "silero_vad.onnx"])
    }

    @Test func unknownFlagsAndImpossibleSettingsAreRejected() async throws {
        let clip = PauseClips.clips["piper-16000"]!.path
        try await expectFailure(["vad", clip, "--bogus"], status: 64, saying: ["Unknown option '--bogus'", "Usage: chorus vad"])
        try await expectFailure(["vad", clip, "--threshold", "1.5"], status: 64,
                          saying: ["--threshold 1.5 is invalid", "between 0 and 1", "Usage: chorus vad"])
        try await expectFailure(["vad", clip, "--min-silence-ms=-5"], status: 64,
                          saying: ["--min-silence-ms -5 is invalid: durations cannot be negative"])
        try await expectFailure(["vad"], status: 64, saying: ["Missing expected argument '<file>'"])
    }
}
