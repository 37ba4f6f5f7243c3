import ChorusAudio
import ChorusModels
import Foundation
import Testing
@testable import ChorusRecognition

/// What a user can hand the recogniser that is not what it expects: each is either handled
/// (resampled, heard as silence, converted) or refused with a message naming the file or value.
@Suite struct RecognizerInputTests {
    static func clip() throws -> [Float] {
        try WAVFile.readMono(contentsOf: ToneSentence.resources.appendingPathComponent("tone_sentence.wav")).samples
    }

    /// A fresh folder holding copies of `files` from the generated model folder, plus `extra` text files.
    static func folder(copying files: [String], extra: [String: String] = [:]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-asr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in files {
            try FileManager.default.copyItem(at: ToneSentence.modelFolder.appendingPathComponent(name),
                                             to: folder.appendingPathComponent(name))
        }
        for (name, text) in extra { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    static func message(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "no error"
        } catch {
            return String(describing: error)
        }
    }

    /// A half-precision export (float16 features in, float16 log-probabilities out) is fed converted features.
    @Test func aFloat16ExportHearsWhatTheFloat32OneHears() async throws {
        let golden = try ToneSentence.golden()
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.resources.appendingPathComponent("fastconformer_fp16"))
        let result = try await recognizer.recognize(try Self.clip())
        #expect(result.tokens == golden.token_ids)
        #expect(result.text == golden.text)
    }

    @Test func anInputOfAnotherTypeIsRefusedByName() async throws {
        let path = ToneSentence.resources.appendingPathComponent("fastconformer_float64")
        let recognizer = try FastConformerRecognizer(folder: path)
        let message = await Self.message { _ = try await recognizer.recognize(try Self.clip()) }
        #expect(message.contains("fastconformer_float64/encoder_T800.onnx"))
        #expect(message.contains("'audio_signal_f64' is float64"))
        #expect(message.contains("float32 or float16"))
    }

    @Test func aVocabularyOfAnotherModelNamesBothFilesAndSizes() async throws {
        let tokens = try String(contentsOf: ToneSentence.modelFolder.appendingPathComponent("tokens.txt"), encoding: .utf8)
        let half = tokens.split(separator: "\n").prefix(500).joined(separator: "\n") + "\n"
        let folder = try Self.folder(copying: ["encoder_T800.onnx", "encoder_T4800.onnx"], extra: ["tokens.txt": half])
        defer { try? FileManager.default.removeItem(at: folder) }
        let recognizer = try FastConformerRecognizer(folder: folder)
        let message = await Self.message { _ = try await recognizer.recognize(try Self.clip()) }
        #expect(message.contains(folder.appendingPathComponent("tokens.txt").path + " holds 500 tokens"))
        #expect(message.contains(folder.appendingPathComponent("encoder_T800.onnx").path + " outputs 1001 classes"))
        #expect(message.contains("1000 tokens plus the blank"))
    }

    @Test func aMissingFolderOrAFileInsteadIsNamed() throws {
        #expect(throws: FastConformerRecognizer.manifest.missing("/nonexistent/fastconformer")) {
            try FastConformerRecognizer(folder: URL(fileURLWithPath: "/nonexistent/fastconformer"))
        }
        #expect("\(FastConformerRecognizer.manifest.missing("/m"))".contains("`chorus transcribe --help` lists its files"))
        let file = ToneSentence.resources.appendingPathComponent("tone_sentence.wav")
        #expect(throws: FastConformerRecognizer.manifest.missing(file.path)) { try FastConformerRecognizer(folder: file) }
    }

    @Test func aFolderMissingAFileNamesIt() throws {
        let noTokens = try Self.folder(copying: ["encoder_T800.onnx"])
        let noSymbols = try Self.folder(copying: ["encoder_T800.onnx", "tokens.txt", "pronunciation.onnx"])
        defer {
            try? FileManager.default.removeItem(at: noTokens)
            try? FileManager.default.removeItem(at: noSymbols)
        }
        #expect(throws: FastConformerRecognizer.manifest.missing(noTokens.path + "/tokens.txt or tokenizer.model")) {
            try FastConformerRecognizer(folder: noTokens)
        }
        #expect {
            try FastConformerRecognizer(folder: noSymbols)
        } throws: { error in
            "\(error)".contains("missing: \(noSymbols.path)/pronunciation_vocab.txt not found")
        }
    }

    /// NaN features would decode as the first class of every frame (`<unk>`, printed " ⁇ ").
    @Test func aNonFiniteSampleIsRefusedWithItsIndex() async throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        var audio = try Self.clip()
        audio[1000] = .nan
        await #expect(throws: RecognitionError.nonFiniteSample(index: 1000)) { try await recognizer.recognize(audio) }
        audio[1000] = 0
        audio[2000] = .infinity
        let live = try LiveTranscriber(recognizer: recognizer, inputRate: 16000)
        await #expect(throws: RecognitionError.nonFiniteSample(index: 2000)) {
            _ = try await live.push(audio)
            _ = try await live.finish()
        }
    }

    /// Under two feature frames the per-utterance deviation is undefined; such audio is silence, not `<unk>`.
    @Test(arguments: [0, 1, 159, 160, 161, 319])
    func audioUnderTwoFramesIsSilence(samples: Int) async throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        let clip = try Self.clip()
        // From the middle of the first word's tone, so the audio is not silent.
        let result = try await recognizer.recognize(Array(clip[5000..<(5000 + samples)]))
        #expect(result == Recognition(text: "", tokens: [], pronunciation: ""))
    }

    @Test func featuresLongerThanTheLargestBucketAreRefusedByTheHead() async throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        let features = AcousticFeatures(channels: 80, frames: 4801, values: [Float](repeating: 0, count: 80 * 4801))
        await #expect(throws: RecognitionError.inputTooLong(frames: 4801, largestBucket: 4800)) {
            try await recognizer.encoder.logProbabilities(for: features)
        }
        #expect(RecognitionError.inputTooLong(frames: 4801, largestBucket: 4800).description.contains("cut the audio"))
    }

    /// Audio at 44.1 kHz, streamed live, is resampled and heard as at 16 kHz.
    @Test func liveAudioAtAnotherRateGivesTheOfflineTranscript() async throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        let clip = try Self.clip()
        let offline = try await recognizer.recognize(clip)
        let audio = try Resampler.resample(clip, from: 16000, to: 44100)
        let live = try LiveTranscriber(recognizer: recognizer, inputRate: 44100)
        var updates: [LiveTranscriber.Update] = []
        for start in stride(from: 0, to: audio.count, by: 4410) {
            updates += try await live.push(Array(audio[start..<min(start + 4410, audio.count)]))
        }
        updates += try await live.finish()
        #expect(updates.last == .final(offline.text, tokens: offline.tokens))
        #expect(offline.text == (try ToneSentence.golden()).text)
    }
}
