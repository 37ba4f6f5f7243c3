import Foundation
import Testing
@testable import ChorusKokoro
@testable import ChorusPiper
import ChorusSpeech

/// Tiny models with Kokoro's and Piper's inputs whose "audio" is the ids they are fed, one with the
/// engine's output name and one with another (scripts/testdata/make_ort_test_models.py writes them).
///
/// Engines on them are made with `optimizedModels: nil`: the default cache is the user's
/// `<models>/.optimized`, and these files sit in each checkout's build folder, copied anew by builds (a new
/// path or time, so a new entry): tests left an entry there per checkout and build. `OptimizedModelEngineTests` tries the cache on them in a folder of its own.
enum StandIns {
    static let folder = Bundle.module.url(forResource: "Models", withExtension: nil)!

    static func kokoro(_ model: String) -> KokoroSynthesizer.Files {
        var files = KokoroSynthesizer.Files(folder: folder)
        files.model = folder.appendingPathComponent(model)
        files.vocabulary = folder.appendingPathComponent("kokoro_vocab.json")
        files.voices = folder.appendingPathComponent("kokoro_voices.npz")
        return files
    }

    static func piper(_ model: String) -> URL { folder.appendingPathComponent(model) }
}

@Suite struct StandInModelTests {
    @Test func kokoroRefusesAModelWithoutItsAudioOutput() {
        let files = StandIns.kokoro("kokoro_renamed_output.onnx")
        let expected = SpeechError.missingModelOutput(
            path: files.model.path, output: "audio", outputs: ["waveform"],
            remedy: "It is not a Kokoro v1.0 ONNX export; use the model `scripts/setup.sh` installs.")
        #expect(throws: expected) { try KokoroSynthesizer(files: files, optimizedModels: nil) }
        #expect(expected.description == "Model file \(files.model.path) has no output named \"audio\" (its outputs: waveform). "
            + "It is not a Kokoro v1.0 ONNX export; use the model `scripts/setup.sh` installs.")
    }

    @Test func kokoroReadsTheAudioOutput() async throws {
        let kokoro = try KokoroSynthesizer(files: StandIns.kokoro("kokoro_stand_in.onnx"), optimizedModels: nil)
        #expect(kokoro.voices.map(\.id) == ["af_test"])
        let ids = try kokoro.modelInputs(for: "Hello there.")
        #expect(ids.count == 1 && ids[0].count > 3)
        let samples = try await kokoro.synthesize(SynthesisRequest(text: "Hello there."))
        #expect(samples == ([0] + ids[0] + [0]).map(Float.init))
    }

    @Test func kokoroSpeaksEveryVoiceButADamagedOne() async throws {
        let pack = try CraftedVoicePack()
        defer { pack.remove() }
        var files = StandIns.kokoro("kokoro_stand_in.onnx")
        files.voices = pack.url
        let kokoro = try KokoroSynthesizer(files: files, optimizedModels: nil)
        #expect(kokoro.voices.map(\.id) == ["af_bad", "af_good"])
        #expect(try KokoroSynthesizer.installedVoices(files: files).map(\.id) == ["af_bad", "af_good"])
        await #expect(throws: pack.damagedError) {
            try await kokoro.synthesize(SynthesisRequest(text: "Hello there.", voice: "af_bad"))
        }
        let ids = try kokoro.modelInputs(for: "Hello there.")
        let samples = try await kokoro.synthesize(SynthesisRequest(text: "Hello there.", voice: "af_good"))
        #expect(samples == ([0] + ids[0] + [0]).map(Float.init))
    }

    @Test func piperRefusesAModelWithoutItsAudioOutput() {
        let model = StandIns.piper("piper_renamed_output.onnx")
        #expect(throws: SpeechError.missingModelOutput(
            path: model.path, output: "output", outputs: ["wav"],
            remedy: "It is not a Piper VITS voice; use an .onnx that Piper exported, with its .onnx.json.")) {
            try PiperSynthesizer(modelPath: model, optimizedModels: nil)
        }
    }

    @Test func piperReadsTheAudioOutput() async throws {
        let piper = try PiperSynthesizer(modelPath: StandIns.piper("piper_stand_in.onnx"), optimizedModels: nil)
        #expect(piper.voices.map(\.id) == ["piper_stand_in"])
        let ids = try piper.modelInputs(for: "Hello there.")
        #expect(ids.count == 1 && ids[0].count > 5)
        let samples = try await piper.synthesize(SynthesisRequest(text: "Hello there."))
        #expect(samples == ids[0].map(Float.init))
    }
}
