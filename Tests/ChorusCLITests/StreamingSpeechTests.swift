import Foundation
import Testing

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled,
                "needs the chorus binary and the Piper voice (scripts/setup.sh)"))
struct StreamingSpeechTests {
    @Test func streamsRawPCMToStandardOutputFromStandardInput() async throws {
        let result = try await ChorusProcess.running(["speak", "--stream", "--engine", "piper", "-", "-o", "-", "--format", "pcm"],
                                           input: Data("Hello there. Ça va très bien.".utf8))
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = result.standardOutput.utf8.count
        #expect(bytes > 22_050)
    }

    @Test func streamsAWAVHeaderWithOpenEndedSizes() async throws {
        let result = try await ChorusProcess.running(["speak", "--stream", "--engine", "piper", "Hello.", "-o", "-"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("RIFF"))
    }

    @Test func writesAFileAsItSpeaks() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-stream-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChorusProcess.running(["speak", "--stream", "--engine", "piper", "One. Two.", "-o", output.path])
        #expect(result.status == 0, "\(result.standardError)")
        let data = try Data(contentsOf: output)
        #expect(data.count > 44)
        #expect(data.prefix(4) == Data("RIFF".utf8))
    }

    @Test func noSoundDeviceIsAClearErrorThatSuggestsAnotherOutput() async throws {
        let result = try await ChorusProcess.running(["speak", "--stream", "--engine", "piper", "--device", "chorus_no_such_device", "Hi."])
        #expect(result.status != 0)
        #expect(result.standardError.contains("No sound device"))
        #expect(result.standardError.contains("-o"))
        #expect(!result.standardError.contains("ALSA lib"))
    }

    @Test(arguments: [
        (Data(), "no text to speak"),
        (Data("  \n\t ".utf8), "no text to speak"),
        (Data("Hello there. ".utf8) + Data([0xFF, 0xFE]) + Data(" more".utf8), "offset 13"),
        (Data("Hello ".utf8) + Data([0xC3]), "offset 6"),
    ])
    func emptyOrInvalidStandardInputFailsAndLeavesNoFile(input: Data, message: String) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.wav")
        let result = try await ChorusProcess.running(["speak", "--stream", "--engine", "piper", "-", "-o", output.path], input: input)
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
