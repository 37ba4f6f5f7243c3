import Foundation
import Testing
@testable import Text

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
