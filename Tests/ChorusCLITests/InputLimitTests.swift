import Foundation
import Testing

/// Endless or huge inputs fail at a limit with a sentence, instead of being read whole into memory.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "needs the chorus binary"))
struct InputLimitTests {
    static let endless = URL(fileURLWithPath: "/dev/zero")

    @Test(arguments: [["speak", "--engine", "piper", "-", "-o", "/tmp/chorus-never-written.wav"],
                      ["speak", "--engine", "piper", "--stream", "-o", "-", "--file", "/dev/zero"],
                      ["tokenize", "--tokenizer", TokenizeCommandTests.data.appendingPathComponent("gpt2").path, "-"]])
    func endlessTextStopsAtTheLimit(arguments: [String]) async throws {
        let result = try await ChorusProcess.running(arguments, inputFile: Self.endless)
        #expect(!result.crashed, "\(result.standardError)")
        #expect(result.status != 0)
        #expect(result.standardError.contains("The text is over 1.5 MB; one call takes at most 100000 characters"),
                "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/chorus-never-written.wav"))
    }

    @Test(arguments: [["vad", "-"], ["transcribe", "-", "--model", ToneModels.folder]])
    func endlessAudioStopsAtTheLimit(arguments: [String]) async throws {
        let result = try await ChorusProcess.running(arguments, inputFile: Self.endless)
        #expect(!result.crashed, "\(result.standardError)")
        #expect(result.status != 0)
        #expect(result.standardError.contains("The audio on standard input is over 256 MB"), "\(result.standardError)")
    }

    @Test func aFolderGivenAsTheTextFileIsNamedAsOne() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChorusProcess.running(["speak", "--engine", "piper", "--file", folder.path, "-o", "/tmp/x.wav"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("it is a folder"), "\(result.standardError)")
    }

    @Test(arguments: [["speak", "--engine", "piper", "-", "-o", "/tmp/chorus-never-written.wav"],
                      ["speak", "--engine", "piper", "--stream", "-", "-o", "/tmp/chorus-never-written.wav"],
                      ["tokenize", "--tokenizer", TokenizeCommandTests.data.appendingPathComponent("gpt2").path, "-"]])
    func aNULByteIsRefusedWithItsOffsetInEveryMode(arguments: [String]) async throws {
        let result = try await ChorusProcess.running(arguments, input: Data("Hello there.\u{0} And the rest.".utf8))
        #expect(!result.crashed)
        #expect(result.status != 0)
        #expect(result.standardError.contains("NUL byte at offset 12"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/chorus-never-written.wav"))
    }
}
