import ChorusAudio
import Foundation
import Testing

/// The generated FastConformer models and clip, and the Python reference's transcript of it
/// (scripts/testdata/make_fastconformer_testdata.py).
enum ToneModels {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusRecognitionTests/Resources")
    static let folder = resources.appendingPathComponent("fastconformer").path
    static let clip = resources.appendingPathComponent("tone_sentence.wav")

    struct Golden: Decodable {
        var text: String
        var token_ids: [Int]
        var pronunciation: String
    }

    static let golden: Golden = try! JSONDecoder().decode(
        Golden.self, from: Data(contentsOf: resources.appendingPathComponent("tone_sentence.json")))

    static func samples() throws -> [Float] {
        let (samples, rate) = try WAVFile.readMono(contentsOf: clip)
        precondition(rate == 16000)
        return samples
    }

    /// The clip's samples as raw 16-bit little-endian PCM.
    static func rawPCM() throws -> Data {
        let file = try Data(contentsOf: clip)
        return file.dropFirst(44)  // the generator writes a canonical 44-byte header
    }
}

/// A temporary folder holding `files` copied from the generated model folder and `extra` text files.
func modelFolder(copying files: [String], extra: [String: String] = [:]) throws -> URL {
    let folder = try temporaryFolder()
    for name in files {
        try FileManager.default.copyItem(atPath: ToneModels.folder + "/" + name, toPath: folder.appendingPathComponent(name).path)
    }
    for (name, text) in extra { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
    return folder
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "chorus binary not built"))
struct TranscribeCommandTests {
    let transcript = ToneModels.golden.text

    @Test func transcribesAFileAsThePythonReferenceDoes() async throws {
        let result = try await ChorusProcess.running(["transcribe", ToneModels.clip.path, "--model", ToneModels.folder])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(transcript)\npronunciation: \(ToneModels.golden.pronunciation)\n")
        #expect(result.standardError.contains("transcribed 5.88 s of audio"))

        let json = try await ChorusProcess.running(["transcribe", ToneModels.clip.path, "--model", ToneModels.folder, "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["text"] as? String == transcript)
        #expect(object["tokens"] as? [Int] == ToneModels.golden.token_ids)
        #expect(object["pronunciation"] as? String == ToneModels.golden.pronunciation)
    }

    /// 44.1 kHz is resampled to 16 kHz, stereo (float WAV) mixed to mono: the same transcript.
    @Test func otherRatesAndStereoAreConvertedFirst() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try ToneModels.samples()
        let resampled = folder.appendingPathComponent("44k.wav")
        try WAVWriter.write(try Resampler.resample(clip, from: 16000, to: 44100), sampleRate: 44100, to: resampled)
        let stereo = folder.appendingPathComponent("stereo.wav")
        try WAVWriter.write(clip.flatMap { [$0, $0] }, sampleRate: 16000, channels: 2, format: .float32, to: stereo)
        for file in [resampled, stereo] {
            let result = try await ChorusProcess.running(["transcribe", file.path, "--model", ToneModels.folder])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix(transcript + "\n"), "\(file.lastPathComponent)")
        }
    }

    /// Nine copies of the clip, 53 s, are more than the 48 s bucket: cut with overlap and merged.
    @Test func audioLongerThanTheLargestBucketIsChunkedAndMerged() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = folder.appendingPathComponent("long.wav")
        let clip = try ToneModels.samples()
        try WAVWriter.write([[Float]](repeating: clip, count: 9).flatMap { $0 }, sampleRate: 16000, to: long)
        let result = try await ChorusProcess.running(["transcribe", long.path, "--model", ToneModels.folder, "--no-vad", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["text"] as? String == [String](repeating: transcript, count: 9).joined(separator: " "))
        #expect(object["tokens"] as? [Int] == [[Int]](repeating: ToneModels.golden.token_ids, count: 9).flatMap { $0 })
    }

    @Test func readsAWAVOrRawPCMFromStandardInput() async throws {
        for input in [try Data(contentsOf: ToneModels.clip), try ToneModels.rawPCM()] {
            let result = try await ChorusProcess.running(["transcribe", "-", "--model", ToneModels.folder], input: input)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix(transcript + "\n"))
        }
    }

    /// Without VAD (the tones are not speech to Silero) the stream is one utterance, finalised at the end.
    @Test func liveFromRawPCMOrAWAVStreamGivesTheOfflineTranscript() async throws {
        let wav = try Data(contentsOf: ToneModels.clip)
        for input in [try ToneModels.rawPCM(), wav] {
            let result = try await ChorusProcess.running(["transcribe", "--live", "-", "--model", ToneModels.folder, "--no-vad"], input: input)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == transcript + "\n")
            #expect(result.standardError.contains("… I was"))  // partial transcripts
        }
        let json = try await ChorusProcess.running(["transcribe", "--live", "-", "--model", ToneModels.folder, "--no-vad", "--json"],
                                         input: wav)
        #expect(json.status == 0)
        let lines = json.standardOutput.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let final = try #require(lines.last ?? nil)
        #expect(final["type"] as? String == "final")
        #expect(final["text"] as? String == transcript)
        #expect(final["tokens"] as? [Int] == ToneModels.golden.token_ids)
        #expect(lines.dropLast().allSatisfy { $0?["type"] as? String == "partial" })
    }

    @Test func liveAtAnotherRateIsResampled() async throws {
        let audio = try Resampler.resample(try ToneModels.samples(), from: 16000, to: 44100)
        let raw = Data(audio.flatMap { sample in
            let value = Int16(max(-32768, min(32767, (sample * 32768).rounded())))
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        })
        let result = try await ChorusProcess.running(["transcribe", "--live", "-", "--rate", "44100", "--model", ToneModels.folder,
                                            "--no-vad"], input: raw)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == transcript + "\n")
    }

    @Test func aFloat16ExportTranscribesAlike() async throws {
        let folder = ToneModels.resources.appendingPathComponent("fastconformer_fp16").path
        let result = try await ChorusProcess.running(["transcribe", ToneModels.clip.path, "--model", folder])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == transcript + "\n")
    }

    @Test func anEmptyWAVHasAnEmptyTranscriptAndSaysSo() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.wav")
        try WAVWriter.write([], sampleRate: 16000, to: empty)
        let result = try await ChorusProcess.running(["transcribe", empty.path, "--model", ToneModels.folder, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == #"{"pronunciation":"","text":"","tokens":[]}"# + "\n")
        #expect(result.standardError.contains("empty.wav holds no audio"))
    }
}

/// Every way the command can be misused ends with a message that names the thing and what to do,
/// a non-zero status, and no crash.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "chorus binary not built"))
struct TranscribeCommandErrorTests {
    func expectFailure(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                       status: Int32 = 1, saying phrases: [String]) async throws {
        let result = try await ChorusProcess.running(arguments, input: input, environment: environment)
        #expect(!result.crashed, "\(arguments) crashed: \(result.standardError)")
        #expect(result.status == status, "\(arguments): \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        for phrase in phrases {
            #expect(result.standardError.contains(phrase), "\(arguments): \(result.standardError)")
        }
    }

    @Test func aMissingModelFolderIsNamedWithTheFlagToGive() async throws {
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", "/nonexistent/fastconformer"],
                          saying: ["model is missing: /nonexistent/fastconformer not found", "pass its folder with --model"])
        let root = try temporaryFolder()
        try await expectFailure(["transcribe", ToneModels.clip.path], environment: ["CHORUS_MODELS": root.path],
                          saying: ["missing: \(root.path)/fastconformer not found", "No FastConformer weights ship with Chorus"])
        // A file where the folder should be.
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", ToneModels.clip.path],
                          saying: ["missing: \(ToneModels.clip.path) not found"])
    }

    @Test func aModelFolderMissingAFileNamesIt() async throws {
        let noEncoder = try modelFolder(copying: ["tokens.txt"])
        let noTokens = try modelFolder(copying: ["encoder_T800.onnx"])
        let noSymbols = try modelFolder(copying: ["encoder_T800.onnx", "tokens.txt", "pronunciation.onnx"])
        defer { [noEncoder, noTokens, noSymbols].forEach { try? FileManager.default.removeItem(at: $0) } }
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", noEncoder.path],
                          saying: ["\(noEncoder.path)/encoder.onnx (or encoder_T<frames>.onnx", "chorus transcribe --help"])
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", noTokens.path],
                          saying: ["\(noTokens.path)/tokens.txt or tokenizer.model not found"])
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", noSymbols.path],
                          saying: ["\(noSymbols.path)/pronunciation_vocab.txt not found", "needs its symbols, one per line"])
    }

    @Test func aVocabularyThatDoesNotFitTheModelNamesBoth() async throws {
        let tokens = try String(contentsOfFile: ToneModels.folder + "/tokens.txt", encoding: .utf8)
        let folder = try modelFolder(copying: ["encoder_T800.onnx"],
                                     extra: ["tokens.txt": tokens.split(separator: "\n").prefix(900).joined(separator: "\n")])
        defer { try? FileManager.default.removeItem(at: folder) }
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", folder.path],
                          saying: ["\(folder.path)/tokens.txt holds 900 tokens", "encoder_T800.onnx outputs 1001 classes",
                                   "use the vocabulary exported with that model"])
    }

    @Test func aModelWithAnotherInputTypeIsRefusedByName() async throws {
        let folder = ToneModels.resources.appendingPathComponent("fastconformer_float64").path
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", folder],
                          saying: ["encoder_T800.onnx is not a CTC model Chorus can run", "'audio_signal_f64' is float64",
                                   "re-export the model"])
    }

    @Test func corruptTruncatedAndMissingAudioFilesAreNamed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let truncated = folder.appendingPathComponent("truncated.wav")
        try Data(contentsOf: ToneModels.clip).prefix(1000).write(to: truncated)
        let corrupt = folder.appendingPathComponent("corrupt.wav")
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: corrupt)
        let missing = folder.appendingPathComponent("missing.wav")
        try await expectFailure(["transcribe", truncated.path, "--model", ToneModels.folder],
                          saying: ["\(truncated.path) is truncated", "188160 bytes of audio but only 956 follow"])
        try await expectFailure(["transcribe", corrupt.path, "--model", ToneModels.folder],
                          saying: ["\(corrupt.path) is not WAV, FLAC or MP3 audio", "convert it"])
        try await expectFailure(["transcribe", missing.path, "--model", ToneModels.folder],
                          saying: ["Cannot read \(missing.path)", "Check the path"])
    }

    @Test func emptyOrUndecodableStandardInputIsExplained() async throws {
        for mode in [["--live"], []] {
            try await expectFailure(["transcribe"] + mode + ["-", "--model", ToneModels.folder], input: Data(),
                              saying: ["No audio arrived on standard input"])
        }
        let header = try Data(contentsOf: ToneModels.clip).prefix(30)
        try await expectFailure(["transcribe", "--live", "-", "--model", ToneModels.folder], input: header,
                          saying: ["The WAV stream on standard input ended inside its header"])
        try await expectFailure(["transcribe", "--live", "-", "--model", ToneModels.folder],
                          input: Data("ID3".utf8) + Data(count: 2000), saying: ["is MP3 audio", "ffmpeg"])
        // Read whole, FLAC is decoded (and this one is damaged); streamed live, it is named as what it is.
        try await expectFailure(["transcribe", "-", "--model", ToneModels.folder],
                          input: Data("fLaC".utf8) + Data(count: 2000), saying: ["standard input is a damaged FLAC file"])
        try await expectFailure(["transcribe", "--live", "-", "--model", ToneModels.folder],
                          input: Data("fLaC".utf8) + Data(count: 2000), saying: ["is FLAC audio"])
    }

    @Test func unknownFlagsAndImpossibleValuesAreRejectedWithUsage() async throws {
        try await expectFailure(["transcribe", ToneModels.clip.path, "--bogus"], status: 64,
                          saying: ["Unknown option '--bogus'", "Usage: chorus transcribe"])
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", ToneModels.folder, "--threads", "0"], status: 64,
                          saying: ["--threads must be 1 to 64"])
        try await expectFailure(["transcribe", ToneModels.clip.path, "--model", ToneModels.folder, "--threads", "99999"],
                                status: 64, saying: ["--threads must be 1 to 64"])
        try await expectFailure(["transcribe", "--live", "-", "--rate", "0"], status: 64,
                          saying: ["--rate must be a sample rate in Hz"])
        try await expectFailure(["transcribe", ToneModels.clip.path, "--rate", "fast"], status: 64,
                          saying: ["The value 'fast' is invalid for '--rate <rate>'"])
        try await expectFailure(["transcribe"], status: 64, saying: ["Missing expected argument '<file>'"])
    }
}
