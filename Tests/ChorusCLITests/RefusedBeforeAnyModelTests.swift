import ChorusAudio
import ChorusModels
import Foundation
import Testing

/// Issue 31, items 8 and 9: what a user can get wrong in `chorus voice add` (the id, the clip) and `chorus
/// speak` (text with nothing to say) is refused by every engine in one sentence naming it, before any model
/// loads. The model folders here hold every file an engine looks for, but each graph is "not an ONNX model":
/// had a model been loaded, the error would be ONNX Runtime's instead.
@Suite struct RefusedBeforeAnyModelTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// A models root with the cloning engines' folders (graphs broken) and one voice each: cosyvoice "v1",
    /// chatterbox "eve", neutts "dave".
    static func brokenModels() throws -> URL {
        let root = try temporaryFolder()
        let sources = [("cosyvoice", "ChorusCosyVoiceTests/Resources/model"), ("chatterbox-fp32", "ChorusChatterboxTests/Resources/model"),
                       ("neutts", "ChorusNeuTTSTests/Resources/model")]
        for (name, source) in sources {
            try FileManager.default.copyItem(at: tests.appendingPathComponent(source), to: root.appendingPathComponent(name))
        }
        let chatterbox = root.appendingPathComponent("chatterbox-fp32")
        try FileManager.default.copyItem(at: tests.appendingPathComponent("ChorusChatterboxTests/Resources/encoder/speech_encoder.onnx"),
                                         to: chatterbox.appendingPathComponent("speech_encoder.onnx"))
        for name in ["cosyvoice", "chatterbox-fp32", "neutts"] {
            let folder = root.appendingPathComponent(name)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".onnx") {
                try Data("not an ONNX model".utf8).write(to: folder.appendingPathComponent(file))
            }
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("voices"), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(at: tests.appendingPathComponent("ChorusCosyVoiceTests/Resources/voice"),
                                         to: root.appendingPathComponent("cosyvoice/voices/v1"))
        try FileManager.default.copyItem(at: tests.appendingPathComponent("ChorusChatterboxTests/Resources/voice"),
                                         to: chatterbox.appendingPathComponent("voices/eve"))
        let dave = root.appendingPathComponent("neutts/voices/dave")
        try FileManager.default.createDirectory(at: dave, withIntermediateDirectories: true)
        try NeuTTSCommandTests.npy(Array(repeating: 100, count: 50), to: dave.appendingPathComponent("codes.npy"))
        try Data("What the reference says.".utf8).write(to: dave.appendingPathComponent("transcript.txt"))
        return root
    }

    static let engines = [("cosyvoice", "cosyvoice"), ("chatterbox", "chatterbox-fp32"), ("neutts", "neutts")]

    /// The refusal: one line, one sentence (no ONNX Runtime or Foundation error), holding `expected`.
    static func expectOneSentence(_ result: ChorusProcess, holding expected: [String], _ what: String) {
        let lines = result.standardError.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(result.status != 0 && !result.crashed, "\(what): \(result.standardError)")
        #expect(lines.count == 1, "\(what): \(result.standardError)")
        for piece in expected { #expect(result.standardError.contains(piece), "\(what): \(result.standardError)") }
        for foreign in ["ONNX", "NSError", "Error Domain", "outside NeuCodec"] {
            #expect(!result.standardError.contains(foreign), "\(what): \(result.standardError)")
        }
    }

    /// `voice add` with each id the rule refuses, for each engine: main at 53645ad accepted most of them for
    /// Chatterbox (a newline broke the `chorus voices` table), and a 300-character id failed with a raw NSError
    /// after the encoder had run; NeuTTS accepted `_x`.
    @Test(arguments: engines)
    func voiceAddRefusesEachBadIdByTheOneRule(_ engine: String, _ folder: String) async throws {
        let root = try Self.brokenModels()
        defer { try? FileManager.default.removeItem(at: root) }
        let clip = root.appendingPathComponent("clip.wav")
        try WAVWriter.write((0..<(6 * 16_000)).map { Float(0.3 * sin(Double($0) * 0.05)) }, sampleRate: 16_000, to: clip)
        let transcript = engine == "chatterbox" ? [] : ["--text", "Hello there."]
        let ids: [(String, [String])] = [
            ("new\nline", ["'newU+Aline'"]), ("tab\there", ["'tabU+9here'"]), ("back\\slash", ["'back\\slash'"]),
            ("st*r", ["'st*r'"]), ("ti~lde", ["'ti~lde'"]), ("a space", ["'a space'"]),
            ("zw\u{200D}j", ["U+200D", "invisible"]), ("rl\u{202E}o", ["U+202E", "invisible"]),
            (String(repeating: "x", count: 300), ["300 bytes", "limit of 128"]), ("_x", ["'_x'", "starting with a letter or digit"]),
        ]
        for (id, expected) in ids {
            let result = try await ChorusProcess.running(["voice", "add", "--engine", engine, "--audio", clip.path, "--id", id,
                                                          "--model", root.appendingPathComponent(folder).path] + transcript)
            Self.expectOneSentence(result, holding: ["The voice id '"] + expected, "\(engine) \(id.debugDescription)")
        }
        let voices = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("\(folder)/voices").path)
        #expect(voices.count == 1, "\(voices)")
    }

    /// `voice add` with a clip holding NaN or infinity, or silence, for each engine: main at 53645ad gave
    /// NeuTTS "reference code -2147483648 is outside NeuCodec's 0-65535" and Chatterbox ONNX Runtime's Pad
    /// error for NaN, and both accepted silence.
    @Test(arguments: engines)
    func voiceAddRefusesAClipThatIsNotSound(_ engine: String, _ folder: String) async throws {
        let root = try Self.brokenModels()
        defer { try? FileManager.default.removeItem(at: root) }
        let sound = (0..<(6 * 16_000)).map { Float(0.3 * sin(Double($0) * 0.05)) }
        var notANumber = sound, infinite = sound
        notANumber[1_000] = .nan
        infinite[2_000] = -.infinity
        let clips: [(String, [Float], [String])] = [
            ("nan", notANumber, ["sample 1000 is nan"]), ("inf", infinite, ["sample 2000 is -inf"]),
            ("silent", [Float](repeating: 0, count: sound.count), ["it is silent"]),
        ]
        let transcript = engine == "chatterbox" ? [] : ["--text", "Hello there."]
        for (name, samples, expected) in clips {
            let clip = root.appendingPathComponent("\(name).wav")
            try WAVWriter.write(samples, sampleRate: 16_000, format: .float32, to: clip)
            let result = try await ChorusProcess.running(["voice", "add", "--engine", engine, "--audio", clip.path, "--id", name,
                                                          "--model", root.appendingPathComponent(folder).path] + transcript)
            Self.expectOneSentence(result, holding: ["The clip cannot make a voice"] + expected, "\(engine) \(name)")
        }
    }

    static let kokoroAndPiperInstalled = ["kokoro", "piper"].allSatisfy {
        FileManager.default.fileExists(atPath: ModelStore.current.folder(named: $0).path + "/.complete")
    }

    /// `speak` with text of control characters only: main at 53645ad spoke it as 43.8 s of audio (CosyVoice),
    /// 1.0 s (NeuTTS), 2.0 s (Chatterbox). Every engine says there is nothing to speak, naming the characters.
    @Test func speakRefusesTextOfControlCharactersBeforeTheModelLoads() async throws {
        let root = try Self.brokenModels()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = "\u{1}\u{2}\u{7}\u{1B}\u{7F}"
        for (engine, _) in Self.engines {
            let output = root.appendingPathComponent("\(engine).wav")
            let result = try await ChorusProcess.running(["speak", "--engine", engine, control, "-o", output.path],
                                                         environment: ["CHORUS_MODELS": root.path])
            Self.expectOneSentence(result, holding: ["Nothing speakable in \"U+1U+2U+7U+1BU+7F\""], engine)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    @Test(.enabled(if: kokoroAndPiperInstalled, "Kokoro or Piper not installed in $CHORUS_MODELS; run scripts/setup.sh"))
    func kokoroAndPiperRefuseTextOfControlCharacters() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for engine in ["kokoro", "piper"] {
            let result = try await ChorusProcess.running(["speak", "--engine", engine, "\u{1}\u{2}\u{7}\u{1B}\u{7F}", "-o",
                                                          folder.appendingPathComponent("\(engine).wav").path])
            Self.expectOneSentence(result, holding: ["Nothing speakable"], engine)
        }
    }
}
