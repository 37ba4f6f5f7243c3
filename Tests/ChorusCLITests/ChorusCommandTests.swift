import ChorusModels
import Foundation
import Testing

/// Runs the built `chorus` binary (next to the test bundle) and captures what it prints.
struct ChorusProcess {
    var status: Int32
    var standardOutput: String { String(decoding: standardOutputData, as: UTF8.self) }
    /// Standard output's bytes as written (audio, for `-o -`).
    var standardOutputData: Data
    var standardError: String
    /// Whether the process died of a signal (a crash) rather than exiting.
    var crashed = false

    static var binary: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // On Apple platforms the tests run inside an .xctest bundle; the binary sits beside the bundle.
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS" || folder.lastPathComponent == "Contents" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("chorus")
    }

    /// Runs `chorus` with `arguments`, `input` on its standard input, and waits for it without holding
    /// a thread: its output goes to files and the process's termination handler resumes the test.
    /// `inputFile` (such as /dev/zero, an endless input) is read instead of `input`.
    static func running(_ arguments: [String], input: Data? = nil, inputFile: URL? = nil,
                        environment: [String: String] = [:]) async throws
        -> ChorusProcess
    {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (inURL, outURL, errURL) = (folder.appendingPathComponent("in"), folder.appendingPathComponent("out"),
                                       folder.appendingPathComponent("err"))
        try (input ?? Data()).write(to: inURL)
        for url in [outURL, errURL] { try Data().write(to: url) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = try FileHandle(forReadingFrom: inputFile ?? inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let (status, reason) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: ($0.terminationStatus, $0.terminationReason)) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return ChorusProcess(status: status,
                             standardOutputData: try Data(contentsOf: outURL),
                             standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
                             crashed: reason == .uncaughtSignal)
    }
}

func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "chorus binary not built"))
struct ChorusCommandTests {
    @Test func helpListsTheCommands() async throws {
        let result = try await ChorusProcess.running(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("speak"))
        #expect(result.standardOutput.contains("voices"))
    }

    @Test func speakHelpNamesEveryEnginesModel() async throws {
        let result = try await ChorusProcess.running(["speak", "--help"])
        #expect(result.status == 0)
        // Help is wrapped to the terminal's width; compare with the line breaks folded away.
        let help = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for model in ["kokoro: a Kokoro model folder", "piper: a Piper voice's .onnx file (its .onnx.json beside it)",
                      "cosyvoice: a CosyVoice 3 model folder"] {
            #expect(help.contains(model), "\(help)")
        }
    }

    @Test func emptyTextFailsClearly() async throws {
        let folder = try temporaryFolder()
        let result = try await ChorusProcess.running(["speak", "   ", "-o", folder.appendingPathComponent("x.wav").path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("The text is empty"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func unknownEngineIsRejectedWithTheChoices() async throws {
        let result = try await ChorusProcess.running(["speak", "hi", "--engine", "nope", "-o", "/tmp/x.wav"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("kokoro"))
        #expect(result.standardError.contains("piper"))
    }

    @Test func unwritableOutputFailsBeforeSynthesis() async throws {
        let result = try await ChorusProcess.running(["speak", "hi", "-o", "/nonexistent-folder/x.wav"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("/nonexistent-folder does not exist"))
    }

    @Test func invalidUTF8OnStandardInputIsNamed() async throws {
        let bytes = Data("Hello ".utf8) + Data([0xFF, 0xFE]) + Data(" world".utf8)
        let result = try await ChorusProcess.running(["speak", "-", "-o", "/tmp/chorus-never.wav"], input: bytes)
        #expect(result.status != 0)
        #expect(result.standardError.contains("not valid UTF-8"))
        #expect(result.standardError.contains("offset 6"))
    }

    @Test func missingModelSaysHowToInstallIt() async throws {
        let folder = try temporaryFolder()
        let result = try await ChorusProcess.running(["speak", "hi", "-o", folder.appendingPathComponent("x.wav").path],
                                           environment: ["CHORUS_MODELS": folder.appendingPathComponent("none").path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("kokoro-v1.0.int8.onnx"))
        #expect(result.standardError.contains("chorus models pull kokoro"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func languageIsRefusedForPiperAndAMissingCustomModelIsNamed() async throws {
        let language = try await ChorusProcess.running(["speak", "hi", "--engine", "piper", "--language", "fr", "-o", "/tmp/x.wav"])
        #expect(language.status != 0)
        #expect(language.standardError.contains("--language applies to kokoro"))
        let model = try await ChorusProcess.running(["speak", "hi", "--engine", "piper", "--model", "/nope/voice.onnx", "-o", "/tmp/x.wav"])
        #expect(model.status != 0)
        #expect(model.standardError.contains("/nope/voice.onnx not found"))
    }

    @Test func outOfRangeSpeedIsRejected() async throws {
        let result = try await ChorusProcess.running(["speak", "hi", "--speed", "5", "-o", "/tmp/x.wav"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--speed must be between 0.5 and 2"))
    }
}

/// Whether scripts/setup.sh installed the Piper voice where `chorus` looks for it.
let piperInstalled: Bool = {
    FileManager.default.fileExists(atPath: ModelStore.current.folder(named: "piper").path + "/.complete")
}()

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled,
                "chorus binary or Piper model missing; run scripts/setup.sh"))
struct ChorusSpeakTests {
    @Test func speaksFromStandardInputIntoAWAVAndLeavesNoPartialFile() async throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("hello.wav")
        let result = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", output.path], input: Data("Hello there.".utf8))
        #expect(result.status == 0, "\(result.standardError)")
        let data = try Data(contentsOf: output)
        #expect(data.count > 44 + 22_050)  // over half a second of 16-bit audio
        #expect(data.prefix(4) == Data("RIFF".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["hello.wav"])
    }

    @Test(arguments: [false, true])
    func speakingTwiceToTheSameFileReplacesIt(streaming: Bool) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("again.wav")
        let flags = streaming ? ["--stream"] : []
        for text in ["First.", "A second and longer sentence."] {
            let result = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", output.path] + flags + [text])
            #expect(result.status == 0, "\(result.standardError)")
        }
        let second = try Data(contentsOf: output)
        let first = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", folder.appendingPathComponent("first.wav").path, "First."])
        #expect(first.status == 0)
        #expect(second.count > (try Data(contentsOf: folder.appendingPathComponent("first.wav"))).count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["again.wav", "first.wav"])
    }

    @Test func unknownVoiceListsTheAvailableOnes() async throws {
        let folder = try temporaryFolder()
        let result = try await ChorusProcess.running(["speak", "hi", "--engine", "piper", "--voice", "nobody",
                                            "-o", folder.appendingPathComponent("x.wav").path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("Unknown voice 'nobody'"))
        #expect(result.standardError.contains("en_US-joe-medium"))
    }

    @Test func voicesListsBothEngines() async throws {
        let result = try await ChorusProcess.running(["voices", "--json"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("\"engine\" : \"piper\""))
    }

    @Test func voicesTableHasAHeaderAndNoTrailingBlanks() async throws {
        let result = try await ChorusProcess.running(["voices", "--engine", "piper"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ENGINE") == true)
        #expect(lines.contains { $0.hasPrefix("piper") && $0.contains("en_US-joe-medium") })
        #expect(lines.allSatisfy { $0.last != " " })
    }
}
