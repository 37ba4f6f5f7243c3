import ChorusChatterbox
import ChorusModels
import ChorusSpeech
import Foundation
import Testing

/// `chorus voices` reads voices from disk: it lists a models folder whose .onnx files are not models
/// at all (so no engine could load), with the same lines it prints for the real install.
@Suite struct VoicesCommandTests {
    static let installed = ModelStore.current
    static let kokoroAndPiperInstalled = ["kokoro", "piper"].allSatisfy {
        FileManager.default.fileExists(atPath: installed.folder(named: $0).appendingPathComponent(".complete").path)
    }

    /// A models root holding Kokoro's and Piper's voice files beside corrupt .onnx files, and a
    /// CosyVoice folder of corrupt .onnx files with one voice.
    static func corruptModels() throws -> URL {
        let root = try temporaryFolder()
        let garbage = Data("not an ONNX model".utf8)
        for (engine, files, model) in [("kokoro", ["vocab.json", "voices_ja.npz"], "kokoro-v1.0.int8.onnx"),
                                       ("piper", ["en_US-joe-medium.onnx.json"], "en_US-joe-medium.onnx")] {
            let folder = root.appendingPathComponent(engine)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in files {
                try FileManager.default.copyItem(at: installed.folder(named: engine).appendingPathComponent(file),
                                                 to: folder.appendingPathComponent(file))
            }
            try garbage.write(to: folder.appendingPathComponent(model))
        }
        let cosyvoice = root.appendingPathComponent("cosyvoice")
        let voice = cosyvoice.appendingPathComponent("voices/fox")
        try FileManager.default.createDirectory(at: voice, withIntermediateDirectories: true)
        let testModels = VoiceCommandTests.testModels
        for name in try FileManager.default.contentsOfDirectory(atPath: testModels.path) {
            let target = cosyvoice.appendingPathComponent(name)
            if name.hasSuffix(".onnx") {
                try garbage.write(to: target)
            } else {
                try FileManager.default.copyItem(at: testModels.appendingPathComponent(name), to: target)
            }
        }
        for file in ["speaker_embedding.bin", "prompt_tokens.bin", "prompt_mel.bin", "prompt_text.txt"] {
            try Data(count: 16).write(to: voice.appendingPathComponent(file))
        }
        try Data(#"{"language": "en", "gender": "female"}"#.utf8).write(to: voice.appendingPathComponent("voice.json"))
        // NeuTTS: garbage models, one voice of codes and transcript.
        let neutts = root.appendingPathComponent("neutts")
        let neuttsVoice = neutts.appendingPathComponent("voices/dave")
        try FileManager.default.createDirectory(at: neuttsVoice, withIntermediateDirectories: true)
        for name in ["backbone.onnx", "tokenizer.json", "decoder.onnx"] { try garbage.write(to: neutts.appendingPathComponent(name)) }
        try NeuTTSCommandTests.npy([1, 2, 3], to: neuttsVoice.appendingPathComponent("codes.npy"))
        try Data("Hello.".utf8).write(to: neuttsVoice.appendingPathComponent("transcript.txt"))
        // Chatterbox: garbage graphs, one voice of the speech encoder's four outputs.
        let chatterbox = root.appendingPathComponent("chatterbox-fp32")
        let chatterboxVoice = chatterbox.appendingPathComponent("voices/eve")
        try FileManager.default.createDirectory(at: chatterboxVoice, withIntermediateDirectories: true)
        for name in ["embed_tokens.onnx", "language_model.onnx", "conditional_decoder.onnx", "tokenizer.json"] {
            try garbage.write(to: chatterbox.appendingPathComponent(name))
        }
        // The four files are well formed (a voice with damaged files is listed as unusable, not as a voice).
        try VoiceConditioning(audioFeatures: [Float](repeating: 0, count: 4 * 8), conditioningLength: 4, width: 8,
                              audioTokens: [1, 2, 3], speakerEmbeddings: [Float](repeating: 0, count: 192),
                              speakerFeatures: [Float](repeating: 0, count: 2 * VoiceConditioning.melBins), promptFrames: 2)
            .write(to: chatterboxVoice)
        return root
    }

    @Test(.enabled(if: kokoroAndPiperInstalled, "Kokoro or Piper not installed; run scripts/setup.sh"))
    func listsVoicesWithoutLoadingAnyModel() async throws {
        let root = try Self.corruptModels()
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["CHORUS_MODELS": root.path]
        let listed = try await ChorusProcess.running(["voices"], environment: environment)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardError.isEmpty, "\(listed.standardError)")
        let rows = listed.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["cosyvoice", "fox", "en", "female"]), "\(listed.standardOutput)")
        #expect(rows.contains(["neutts", "dave", "en-us", "unknown"]), "\(listed.standardOutput)")
        #expect(rows.contains(["chatterbox", "eve", "en", "unknown"]), "\(listed.standardOutput)")

        // The Kokoro and Piper lines are those of the real install (widths aside: each table pads to its longest cell).
        let real = try await ChorusProcess.running(["voices", "--json"])
        let corrupt = try await ChorusProcess.running(["voices", "--json"], environment: environment)
        let realVoices = try JSONDecoder().decode([Voice].self, from: Data(real.standardOutput.utf8))
        let corruptVoices = try JSONDecoder().decode([Voice].self, from: Data(corrupt.standardOutput.utf8))
        let phonemeEngines = { (voices: [Voice]) in voices.filter { !["cosyvoice", "neutts", "chatterbox"].contains($0.engine) } }
        #expect(!phonemeEngines(realVoices).isEmpty)
        #expect(phonemeEngines(corruptVoices) == phonemeEngines(realVoices))

        // The same folder cannot be loaded: listing never touched the models.
        let spoken = try await ChorusProcess.running(["speak", "--engine", "piper", "hi", "-o", root.appendingPathComponent("x.wav").path],
                                                     environment: environment)
        #expect(spoken.status != 0)
    }

    @Test func aMissingModelIsReportedAndNothingListed() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let listed = try await ChorusProcess.running(["voices", "--engine", "piper"], environment: ["CHORUS_MODELS": root.path])
        #expect(listed.status != 0)
        #expect(listed.standardError.contains("not available: piper: The piper model is missing: \(root.path)/piper/en_US-joe-medium.onnx not found"),
                "\(listed.standardError)")
    }

    @Test func aDamagedVoiceIsNamedAndTheOthersStillListed() async throws {
        let root = try Self.corruptModels()
        defer { try? FileManager.default.removeItem(at: root) }
        let voices = root.appendingPathComponent("cosyvoice/voices")
        try FileManager.default.copyItem(at: voices.appendingPathComponent("fox"), to: voices.appendingPathComponent("owl"))
        try Data("{broken".utf8).write(to: voices.appendingPathComponent("owl/voice.json"))
        let listed = try await ChorusProcess.running(["voices", "--engine", "cosyvoice"], environment: ["CHORUS_MODELS": root.path])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("fox"))
        #expect(!listed.standardOutput.contains("owl"))
        #expect(listed.standardError == "not available: cosyvoice voice 'owl': its voice.json is not valid JSON of a voice description\n")
    }
}
