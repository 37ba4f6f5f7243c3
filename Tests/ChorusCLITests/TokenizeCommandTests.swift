import Foundation
import Testing

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "chorus binary not built"))
struct TokenizeCommandTests {
    static let data = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TextTestData")

    @Test func encodesTheCosyVoicePrompt() async throws {
        let result = try await ChorusProcess.running([
            "tokenize", "--tokenizer", Self.data.appendingPathComponent("qwen2").path, "--cosyvoice3",
            "You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput == "2610 525 264 10950 17847 13 151646 99880 56568 103934 100006 100854 56006 107228 52801 119024 1773\n")
    }

    @Test func decodesIDsFromStandardInput() async throws {
        let result = try await ChorusProcess.running(
            ["tokenize", "--tokenizer", Self.data.appendingPathComponent("gpt2").path, "--decode"],
            input: Data("15496, 12520 99 247 995\n".utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput == "Hello 🦙 world\n")
    }

    @Test func readsSentencePieceModels() async throws {
        let model = Self.data.appendingPathComponent("sentencepiece/botchan_en_unigram_1000.model").path
        let result = try await ChorusProcess.running(["tokenize", "--tokenizer", model, "Hello world."])
        #expect(result.status == 0)
        #expect(!result.standardOutput.isEmpty)
    }

    @Test func explainsBadInput() async throws {
        let qwen2 = Self.data.appendingPathComponent("qwen2").path
        let unknown = try await ChorusProcess.running(["tokenize", "--tokenizer", qwen2, "--decode", "1 999999"])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("token id 999999 is not in the vocabulary"))
        let invalid = try await ChorusProcess.running(["tokenize", "--tokenizer", qwen2], input: Data([0x61, 0xFF, 0x62]))
        #expect(invalid.status != 0)
        #expect(invalid.standardError.contains("not valid UTF-8"))
        let missing = try await ChorusProcess.running(["tokenize", "--tokenizer", "/nonexistent/tokenizer", "x"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("/nonexistent/tokenizer"))
    }
}
