import ChorusModels
import Foundation
import Testing

/// Whether scripts/setup.sh installed Kokoro's model and voice pack where `chorus` looks for them.
private let kokoroInstalled: Bool = {
    FileManager.default.fileExists(atPath: ModelStore.current.folder(named: "kokoro").path + "/.complete")
}()

/// `chorus speak` with no engine named speaks in a voice of the text's language, and `-v` says which and why.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path) && piperInstalled && kokoroInstalled,
                "chorus binary, Piper or Kokoro missing; run scripts/setup.sh"))
struct VoiceChoiceCommandTests {
    private func speak(_ arguments: [String]) async throws -> ChorusProcess {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChorusProcess.running(["speak", "-v", "-o", folder.appendingPathComponent("out.wav").path] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return result
    }

    @Test(arguments: [[], ["--stream"]])
    func englishIsSpokenByPipersEnglishVoice(flags: [String]) async throws {
        let result = try await speak(flags + ["Hello there."])
        #expect(result.standardError.contains("voice: piper/en_US-joe-medium (en-US): the text is English (Latin letters) "
            + "and piper's voice en_US-joe-medium speaks en-US natively"), "\(result.standardError)")
    }

    @Test func japaneseIsSpokenByKokorosJapaneseVoice() async throws {
        let result = try await speak(["こんにちは。"])
        #expect(result.standardError.contains("voice: kokoro/jf_alpha (ja): the text is Japanese (kana) "
            + "and kokoro's voice jf_alpha speaks ja natively"), "\(result.standardError)")
    }

    /// espeak-ng's Japanese reads each kanji by name (441 phonemes for these 24 characters): the cost bound
    /// refused this sentence until it counted at least 1,000 characters.
    @Test func japaneseWithKanjiIsSpokenNotRefusedAsCostly() async throws {
        let result = try await speak(["東京都千代田区の国立国会図書館で資料を調査した。"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("voice: kokoro/jf_alpha (ja)"), "\(result.standardError)")
    }

    @Test func anEngineOrVoiceNamedWinsOverTheLanguage() async throws {
        let engine = try await speak(["--engine", "kokoro", "Hi."])
        #expect(engine.standardError.contains("voice: kokoro/jf_alpha (ja): --engine kokoro"), "\(engine.standardError)")
        let voice = try await speak(["--voice", "jf_alpha", "Hi."])
        #expect(voice.standardError.contains("voice: kokoro/jf_alpha (ja): the voice jf_alpha is kokoro's"), "\(voice.standardError)")
    }
}
