@testable import ChorusCLI
import Foundation
import Testing

/// `chorus speak -o out.mp3|out.flac|out.pcm` writes the encoding its extension (or `--format`) names, whole and
/// with `--stream`, and sox (Debian's, a decoder that is not Chorus's) reads each back to the WAV's length. The
/// command runs in this process on the registered fake engine, whose audio is the same on every run (Piper's
/// is not: its graph draws noise).
@Suite struct EncodedOutputTests {
    /// Frames sox decodes from `file` (16-bit mono raw on a pipe, counted). sox comes with `scripts/setup.sh`;
    /// without it the comparison fails rather than passing unchecked.
    private func soxFrames(_ file: URL) throws -> Int {
        let sox = ["/usr/bin/sox", "/usr/local/bin/sox"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let sox else {
            Issue.record("sox is not installed (scripts/setup.sh installs it): the encoded files cannot be checked")
            return -1
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sox)
        process.arguments = [file.path, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var bytes = 0
        while let block = try pipe.fileHandleForReading.read(upToCount: 1 << 16), !block.isEmpty { bytes += block.count }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sox could not decode \(file.lastPathComponent)")
        return bytes / 2
    }

    private func speak(_ arguments: [String]) async throws {
        _ = EngineRegistrationTests.registered
        let command = try SpeakCommand.parse(["--engine", "echo"] + arguments)
        try await command.run()
    }

    @Test(arguments: [false, true])
    func mp3FlacAndPcmFilesDecodeToTheWAVsLength(streaming: Bool) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "Hello there. This is one file in four encodings."
        let stream = streaming ? ["--stream"] : []
        var outputs: [String: URL] = [:]
        for name in ["out.wav", "out.mp3", "out.flac", "out.pcm"] {
            let url = folder.appendingPathComponent(name)
            try await speak(["-o", url.path] + stream + [text])
            outputs[url.pathExtension] = url
        }
        let wavData = try Data(contentsOf: outputs["wav"]!)
        let frames = (wavData.count - 44) / 2
        #expect(frames > 16_000 / 4, "a quarter of a second of the fake's audio at least")
        #expect(try Data(contentsOf: outputs["pcm"]!) == wavData.dropFirst(44), "raw PCM is the WAV's samples")
        #expect(try Data(contentsOf: outputs["flac"]!).prefix(4) == Data("fLaC".utf8))
        #expect(try soxFrames(outputs["flac"]!) == frames, "FLAC is lossless, sample for sample")
        // MP3 frames hold 576 samples at 16 kHz; the decoder gives whole frames, with LAME's encoder delay
        // before the audio, unless it reads LAME's tag, which says how much to trim at each end.
        let mp3 = try soxFrames(outputs["mp3"]!)
        print("speak -o: WAV \(frames) frames, MP3 decoded by sox \(mp3)")
        #expect(mp3 >= frames && mp3 < frames + 3 * 576, "mp3 decodes to \(mp3) frames, the WAV has \(frames)")
    }

    @Test func formatOverridesTheExtension() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("speech.audio")
        try await speak(["--format", "flac", "-o", file.path, "Hi."])
        #expect(try Data(contentsOf: file).prefix(4) == Data("fLaC".utf8))
    }
}

/// The same through the `chorus` binary with Piper: MP3 on standard output, and what is refused before any work.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled,
                "chorus binary or Piper model missing; run scripts/setup.sh"))
struct EncodedOutputCommandTests {
    @Test func standardOutputTakesMP3() async throws {
        let piped = try await ChorusProcess.running(["speak", "--engine", "piper", "--format", "mp3", "-o", "-", "Hi."])
        #expect(piped.status == 0, "\(piped.standardError)")
        let head = [UInt8](piped.standardOutputData.prefix(3))
        // An ID3 tag, or straight into an MPEG frame (11 sync bits).
        #expect(head == Array("ID3".utf8) || (head.count == 3 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0))
    }

    @Test func anUnknownExtensionOrFloatMP3IsRefusedBeforeAnyWork() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ogg = try await ChorusProcess.running(["speak", "--engine", "piper", "-o", folder.appendingPathComponent("x.m4a").path, "Hi."])
        #expect(ogg.status != 0)
        #expect(ogg.standardError.contains("chorus writes .wav, .mp3, .flac, .opus, .aac and .pcm files"), "\(ogg.standardError)")
        let float = try await ChorusProcess.running(
            ["speak", "--engine", "piper", "--sample-format", "float32", "-o", folder.appendingPathComponent("x.mp3").path, "Hi."])
        #expect(float.status != 0)
        #expect(float.standardError.contains("--sample-format float32 applies to WAV and PCM"), "\(float.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
