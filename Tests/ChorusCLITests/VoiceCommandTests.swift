import ChorusAudio
import ChorusModels
import Foundation
import Testing

/// `chorus voice add` and `chorus speak --engine cosyvoice` on the generated CosyVoice test models
/// (Tests/ChorusCosyVoiceTests/Resources/model), with a clip Chorus's own Piper voice speaks.
@Suite struct VoiceCommandTests {
    static let testModels = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusCosyVoiceTests/Resources/model")

    static let piperInstalled: Bool = {
        FileManager.default.fileExists(atPath: ModelStore.current.folder(named: "piper").path + "/.complete")
    }()

    @Test(.enabled(if: piperInstalled, "Piper not installed in $CHORUS_MODELS; run scripts/setup.sh"))
    func addsADialectVoiceAndSpeaksWithIt() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = folder.appendingPathComponent("models")
        let cosyvoice = models.appendingPathComponent("cosyvoice")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.testModels, to: cosyvoice)
        let clip = folder.appendingPathComponent("clip.wav").path
        let transcript = "The quick brown fox jumps over the lazy dog."
        let spoken = try await ChorusProcess.running(["speak", "--engine", "piper", transcript, "-o", clip])
        #expect(spoken.status == 0, "\(spoken.standardError)")

        let added = try await ChorusProcess.running(["voice", "add", "--audio", clip, "--text", transcript,
                                                     "--id", "fox-yue", "--dialect", "cantonese", "--gender", "male",
                                                     "--model", cosyvoice.path])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("added voice fox-yue"))
        let details = try JSONSerialization.jsonObject(
            with: Data(contentsOf: cosyvoice.appendingPathComponent("voices/fox-yue/voice.json"))) as? [String: String]
        #expect(details?["instruction"] == "请用广东话表达。")
        #expect(details?["language"] == "yue")

        let environment = ["CHORUS_MODELS": models.path]
        let voices = try await ChorusProcess.running(["voices", "--engine", "cosyvoice"], environment: environment)
        #expect(voices.standardOutput.contains("cosyvoice  fox-yue  yue       male"), "\(voices.standardOutput)")

        let output = folder.appendingPathComponent("yue.wav")
        let speech = try await ChorusProcess.running(["speak", "--engine", "cosyvoice", "--voice", "fox-yue", "你好。",
                                                      "-o", output.path], environment: environment)
        #expect(speech.status == 0, "\(speech.standardError)")
        let audio = try WAVFile.readMono(contentsOf: output)
        #expect(audio.sampleRate == 24_000)
        #expect(audio.samples.count > 24_000 / 10)
    }

    @Test func refusesAnUnknownDialectOrTwoInstructions() async throws {
        let unknown = try await ChorusProcess.running(["voice", "add", "--audio", "x.wav", "--text", "x", "--id", "x",
                                                       "--dialect", "klingon"])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("Unknown dialect 'klingon'"))
        #expect(unknown.standardError.contains("sichuanese"))
        let both = try await ChorusProcess.running(["voice", "add", "--audio", "x.wav", "--text", "x", "--id", "x",
                                                    "--dialect", "四川话", "--instruction", "请慢一点。"])
        #expect(both.status != 0)
        #expect(both.standardError.contains("--dialect or --instruction, not both"))
    }

    /// upstream inference_cross_lingual from the command line: a voice added without --text speaks only with
    /// --cross-lingual, and the flag belongs to CosyVoice alone.
    @Test func aVoiceWithoutATranscriptSpeaksCrossLingually() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = folder.appendingPathComponent("models")
        let cosyvoice = models.appendingPathComponent("cosyvoice")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.testModels, to: cosyvoice)
        let clip = Self.testModels.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ChorusVADTests/Resources/speech_pauses_16k.wav")
        let added = try await ChorusProcess.running(["voice", "add", "--audio", clip.path, "--id", "untold",
                                                     "--language", "en", "--model", cosyvoice.path])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("cross-lingual only"))

        let environment = ["CHORUS_MODELS": models.path]
        let output = folder.appendingPathComponent("cross.wav")
        let zeroShot = try await ChorusProcess.running(["speak", "--engine", "cosyvoice", "--voice", "untold", "你好。",
                                                        "-o", output.path], environment: environment)
        #expect(zeroShot.status != 0)
        #expect(zeroShot.standardError.contains("speak with --cross-lingual"), "\(zeroShot.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let cross = try await ChorusProcess.running(["speak", "--engine", "cosyvoice", "--voice", "untold", "--cross-lingual",
                                                     "你好。", "-o", output.path], environment: environment)
        #expect(cross.status == 0, "\(cross.standardError)")
        #expect(try WAVFile.readMono(contentsOf: output).samples.count > 24_000 / 10)

        let piper = try await ChorusProcess.running(["speak", "--engine", "piper", "--cross-lingual", "Hi.", "-o",
                                                     output.path], environment: environment)
        #expect(piper.status != 0)
        #expect(piper.standardError.contains("--cross-lingual applies to cosyvoice"), "\(piper.standardError)")
    }
}
