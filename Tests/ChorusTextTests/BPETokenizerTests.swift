import Foundation
import Testing
import ChorusCosyVoice
@testable import ChorusText

@Suite struct BPETokenizerTests {
    @Test(arguments: ["qwen2", "gpt2"])
    func matchesLlamaCppVectors(name: String) throws {
        let tokenizer = name == "qwen2" ? TestData.qwen2 : TestData.gpt2
        let cases = try TestData.llamaVectors(name)
        #expect(cases.count == 46)
        for (text, expected) in cases {
            #expect(try tokenizer.encode(text) == expected, "\(text.debugDescription)")
            #expect(try tokenizer.decode(expected) == text)
        }
    }

    @Test func cosyVoice3Prompt() throws {
        let tokenizer = TestData.qwen2.addingSpecialTokens(BPETokenizer.cosyVoice3SpecialTokens)
        let ids = try tokenizer.encode("You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。")
        #expect(ids == [2610, 525, 264, 10950, 17847, 13, 151646, 99880, 56568, 103934, 100006, 100854, 56006,
                        107228, 52801, 119024, 1773])
        #expect(tokenizer.id(of: "<|endofsystem|>") == 151663)
        #expect(try tokenizer.decode(ids, skipsSpecialTokens: true) == "You are a helpful assistant.希望你以后能够做的比我还好呦。")
    }

    /// NeuTTS-style prompts: tens of thousands of added speech tokens, matched whole.
    @Test func manyAddedSpeechTokens() throws {
        let names = ["<|TEXT_PROMPT_START|>", "<|TEXT_PROMPT_END|>"] + (0..<65536).map { "<|speech_\($0)|>" }
        let tokenizer = TestData.qwen2.addingSpecialTokens(names)
        #expect(tokenizer.id(of: "<|TEXT_PROMPT_START|>") == 151646)
        #expect(tokenizer.id(of: "<|speech_65535|>") == 151648 + 65535)
        let ids = try tokenizer.encode("<|TEXT_PROMPT_START|>hi there<|TEXT_PROMPT_END|><|speech_123|><|speech_7|>x<|speech_|>")
        let plain = try TestData.qwen2.encode("hi there")
        #expect(Array(ids.prefix(1 + plain.count)) == [151646] + plain)
        #expect(Array(ids[(1 + plain.count)..<(4 + plain.count)]) == [151647, 151648 + 123, 151648 + 7])
        #expect(try tokenizer.decode(ids) == "<|TEXT_PROMPT_START|>hi there<|TEXT_PROMPT_END|><|speech_123|><|speech_7|>x<|speech_|>")
        #expect(try tokenizer.decode(ids, skipsSpecialTokens: true) == "hi therex<|speech_|>")
    }

    @Test func decodesCharactersSplitAcrossTokens() throws {
        let tokenizer = TestData.gpt2
        let ids = try tokenizer.encode("🦙")
        #expect(ids.count > 1)
        #expect(try tokenizer.decode(Array(ids.prefix(1))) == "\u{FFFD}")
        #expect(try tokenizer.decode(ids) == "🦙")
    }

    @Test func unknownIDIsAnError() {
        #expect(throws: TokenizerError.unknownID(60000)) { try TestData.gpt2.decode([60000]) }
        #expect(throws: TokenizerError.unknownID(-1)) { try TestData.gpt2.decode([-1]) }
    }
}

@Suite struct TokenizerJSONTests {
    /// Fills a skeleton tokenizer.json that `tokenizers` saved (vocabulary and merges emptied to keep the
    /// repository small) with the GPT-2 folder's vocabulary and merges, the smaller of the two, then loads it.
    static func tokenizerJSON(_ name: String) throws -> URL {
        let skeleton = try JSONSerialization.jsonObject(with: Data(contentsOf: TestData.url("\(name).tokenizer.json")))
        var root = skeleton as! [String: Any]
        var model = root["model"] as! [String: Any]
        model["vocab"] = try BPETokenizer.readVocabulary(TestData.url("gpt2/vocab.json"))
        model["merges"] = try BPETokenizer.readMerges(TestData.url("gpt2/merges.txt")).map { [$0.0, $0.1] }
        root["model"] = model
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("chorus-\(name)-\(UUID().uuidString)-tokenizer.json")
        try JSONSerialization.data(withJSONObject: root).write(to: url)
        return url
    }

    @Test func loadsGPT2TokenizerJSON() throws {
        let url = try Self.tokenizerJSON("gpt2")
        defer { try? FileManager.default.removeItem(at: url) }
        let tokenizer = try BPETokenizer(tokenizerJSON: url)
        #expect(tokenizer.preTokenizer == PreTokenizer(.gpt2))
        #expect(tokenizer.normalization == .none)
        #expect(tokenizer.addedTokens == TestData.gpt2.addedTokens)
        for (text, expected) in try TestData.llamaVectors("gpt2") {
            #expect(try tokenizer.encode(text) == expected)
        }
    }

    @Test func loadsQwen2TokenizerJSON() throws {
        let url = try Self.tokenizerJSON("qwen2")
        defer { try? FileManager.default.removeItem(at: url) }
        let tokenizer = try BPETokenizer(tokenizerJSON: url)
        #expect(tokenizer.preTokenizer == PreTokenizer(.qwen2))
        #expect(tokenizer.normalization == .nfc)
        #expect(tokenizer.addedTokens.map(\.content) == ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
        #expect(tokenizer.addedTokens.map(\.id) == [151643, 151644, 151645])
        let sameParts = try BPETokenizer(
            vocabulary: BPETokenizer.readVocabulary(TestData.url("gpt2/vocab.json")),
            merges: BPETokenizer.readMerges(TestData.url("gpt2/merges.txt")),
            pattern: .qwen2, normalization: .nfc, addedTokens: tokenizer.addedTokens)
        for (text, _) in try TestData.llamaVectors("qwen2") {
            #expect(try tokenizer.encode(text) == sameParts.encode(text))
        }
        #expect(try tokenizer.encode("a<|im_start|>b") == [64, 151644, 65])
    }
}

@Suite struct StreamingDecoderTests {
    @Test func holdsBackSplitCharacters() throws {
        let tokenizer = TestData.gpt2
        let text = "Hello 🦙 and 希望, café!"
        let ids = try tokenizer.encode(text)
        var decoder = StreamingDecoder(tokenizer: tokenizer)
        var pieces: [String] = []
        for id in ids { pieces.append(try decoder.append(id)) }
        pieces.append(decoder.finish())
        #expect(pieces.joined() == text)
        #expect(!pieces.contains { $0.contains("\u{FFFD}") })
    }

    @Test func finishShowsAnIncompleteCharacter() throws {
        var decoder = StreamingDecoder(tokenizer: TestData.gpt2)
        let ids = try TestData.gpt2.encode("🦙")
        #expect(try decoder.append(ids[0]) == "")
        #expect(decoder.finish() == "\u{FFFD}")
    }
}
