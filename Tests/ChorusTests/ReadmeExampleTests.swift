import Chorus
import ChorusTesting
import Foundation
import Testing

/// The README's library examples compile (ReadmeExamples.swift is built with the tests), say what
/// the README says, and work.
@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let tests = root.appendingPathComponent("Tests")
    static let kokoroInstalled = FileManager.default.fileExists(atPath: Engine.kokoro.defaultModel.path)
    static let piperInstalled = FileManager.default.fileExists(atPath: Engine.piper.defaultModel.path)

    /// The example blocks of a file: from each `// README: name` line to the next blank line.
    static func examples(in text: String) -> [String: String] {
        var found: [String: String] = [:]
        var name: String?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let current = name {
                if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("```") {
                    found[current] = lines.joined(separator: "\n")
                    name = nil
                } else {
                    lines.append(line)
                }
            } else if line.hasPrefix("// README: ") {
                name = String(line.dropFirst("// README: ".count))
                lines = []
            }
        }
        if let name { found[name] = lines.joined(separator: "\n") }
        return found
    }

    @Test func theReadmeShowsTheseExamplesWordForWordEachUnderTenLinesWithImportChorus() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: Self.tests.appendingPathComponent("ChorusTests/ReadmeExamples.swift"),
                                encoding: .utf8)
        let shown = Self.examples(in: readme)
        let compiled = Self.examples(in: source)
        #expect(Set(compiled.keys) == ["speak", "clone", "stream", "transcribe"])
        for (name, code) in compiled {
            #expect(shown[name] == code, "README's '\(name)' example differs from ReadmeExamples.swift")
            // With its `import Chorus` line, each example stays under ten lines.
            #expect(code.split(separator: "\n").count + 1 < 10, "'\(name)' is too long for the README")
        }
        #expect(readme.components(separatedBy: "```swift\nimport Chorus\n\n// README: ").count - 1 == compiled.count)
    }

    /// Every ```swift block of README.md and docs/*.md is found word for word in ReadmeExamples.swift, so no
    /// page shows code the tests do not compile.
    @Test func everySwiftBlockOfTheDocsIsCompiledByTheseTests() throws {
        let source = try String(contentsOf: Self.tests.appendingPathComponent("ChorusTests/ReadmeExamples.swift"),
                                encoding: .utf8)
        let docs = Self.root.appendingPathComponent("docs")
        let pages = [Self.root.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil))
            .filter { $0.pathExtension == "md" }.sorted { $0.path < $1.path }
        #expect(pages.count == 8, "README.md and seven pages under docs/")
        var blocks = 0
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for part in text.components(separatedBy: "```swift\n").dropFirst() {
                let block = part.components(separatedBy: "\n```")[0]
                    .replacingOccurrences(of: "import Chorus\n\n", with: "")
                blocks += 1
                #expect(source.contains(block), "a swift block of \(page.lastPathComponent) is not in ReadmeExamples.swift")
            }
        }
        #expect(blocks >= 4)
    }

    @Test(.enabled(if: kokoroInstalled, "Kokoro not installed; run scripts/setup.sh"))
    func speakWritesAWAVFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-readme-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        try await speak("Hello from Chorus.", to: file)
        let audio = try WAVFile.readMono(contentsOf: file)
        #expect(audio.sampleRate == 24_000)
        #expect(audio.samples.count > 24_000 / 2)
    }

    @Test func cloneSpeaksInAVoiceMadeFromAClip() async throws {
        let samples = try await speakInAClonedVoice(
            "你好，这是一个测试句子。", clip: Self.tests.appendingPathComponent("ChorusVADTests/Resources/speech_pauses_16k.wav"),
            transcript: "A clip to clone.", model: Self.tests.appendingPathComponent("ChorusCosyVoiceTests/Resources/model"))
        #expect(samples.count > 24_000 / 10)
        #expect(samples.allSatisfy { $0.isFinite })
    }

    @Test(.enabled(if: piperInstalled, "Piper not installed; run scripts/setup.sh"))
    func streamPlaysTextAsItArrives() async throws {
        let (pieces, input) = AsyncStream.makeStream(of: String.self)
        for piece in ["Text that ", "arrives in pieces. ", "And more."] { input.yield(piece) }
        input.finish()
        let clock = ManualClock()
        let sink = ClockedNullSink(clock: clock)
        try await clock.advancing { try await speakWhileWritten(pieces, into: sink) }
        #expect(sink.report.playedSamples > 22_050 / 2)
    }

    @Test func transcribeReadsAFileAtAnyRate() async throws {
        let resources = Self.tests.appendingPathComponent("ChorusRecognitionTests/Resources")
        let text = try await transcribe(resources.appendingPathComponent("tone_sentence.wav"),
                                        model: resources.appendingPathComponent("fastconformer"))
        #expect(text == "I was in the that and he toed a heed of the")
    }
}
