import Foundation
import Testing
@testable import ChorusText

/// Broken files get errors that name the file and say what is wrong.
@Suite struct TokenizerErrorTests {
    static func folder(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, content) in files { try Data(content.utf8).write(to: url.appendingPathComponent(name)) }
        return url
    }

    static func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return String(describing: error)
        }
    }

    static let vocabulary = #"{"a": 0, "b": 1, "ab": 2}"#

    @Test func folderErrors() throws {
        let noMerges = try Self.folder(["vocab.json": Self.vocabulary])
        #expect(Self.message { _ = try BPETokenizer(folder: noMerges) }.contains("has no merges.txt"))

        let badJSON = try Self.folder(["vocab.json": "{\"a\": 0,", "merges.txt": "a b\n"])
        #expect(Self.message { _ = try BPETokenizer(folder: badJSON) }.contains("vocab.json is malformed: not valid JSON"))

        let badLine = try Self.folder(["vocab.json": Self.vocabulary, "merges.txt": "#version: 0.2\na b c\n"])
        #expect(Self.message { _ = try BPETokenizer(folder: badLine) }.contains("line 2"))

        for empty in ["", "#version: 0.2\n", "\n\n"] {
            let noPairs = try Self.folder(["vocab.json": Self.vocabulary, "merges.txt": empty])
            #expect(Self.message { _ = try BPETokenizer(folder: noPairs) }.contains("holds no merges"))
        }
        let hugeLine = try Self.folder(["vocab.json": Self.vocabulary, "merges.txt": String(repeating: "x", count: 100_000) + "\n"])
        let hugeMessage = Self.message { _ = try BPETokenizer(folder: hugeLine) }
        #expect(hugeMessage.contains("line 1 (\"" + String(repeating: "x", count: 60) + "...\")"))
        #expect(hugeMessage.count < 300 + hugeLine.path.count)

        let unknownToken = try Self.folder(["vocab.json": Self.vocabulary, "merges.txt": "a c\n"])
        #expect(Self.message { _ = try BPETokenizer(folder: unknownToken) }.contains("\"c\", which is not in the vocabulary"))

        let badID = try Self.folder(["vocab.json": #"{"a": "zero"}"#, "merges.txt": ""])
        #expect(Self.message { _ = try BPETokenizer(folder: badID) }.contains("has no non-negative integer id"))

        let badClass = try Self.folder([
            "vocab.json": Self.vocabulary, "merges.txt": "a b\n", "tokenizer_config.json": #"{"tokenizer_class": "BertTokenizer"}"#,
        ])
        #expect(Self.message { _ = try BPETokenizer(folder: badClass) }.contains("BertTokenizer"))
    }

    @Test func tokenizerJSONErrors() throws {
        let wordPiece = try Self.folder(["tokenizer.json": #"{"model": {"type": "WordPiece", "vocab": {}}}"#])
        #expect(Self.message { _ = try BPETokenizer(tokenizerJSON: wordPiece.appendingPathComponent("tokenizer.json")) }
            .contains("model type WordPiece"))
        let oddSplit = try Self.folder(["tokenizer.json": """
            {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
             "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
               {"type": "Split", "pattern": {"Regex": "\\\\w+"}, "behavior": "Isolated"},
               {"type": "ByteLevel", "use_regex": false}]}}
            """])
        #expect(Self.message { _ = try BPETokenizer(tokenizerJSON: oddSplit.appendingPathComponent("tokenizer.json")) }
            .contains("split expression"))
    }

    /// Found by `bench/fuzz.sh` (bpe, 1,000,000 inputs): a vocab.json id far past the vocabulary's size made
    /// the id-indexed tables that long (one mutated file asked for 1.1 GB). Such ids are refused before
    /// any table is made, in vocab.json, in tokenizer.json's model and in its added tokens.
    @Test func anIDFarPastTheVocabularyIsRefusedBeforeAnyTableIsMade() throws {
        let farID = try Self.folder(["vocab.json": #"{"a": 0, "b": 1, "ab": 2000000000}"#, "merges.txt": "a b\n"])
        #expect(Self.message { _ = try BPETokenizer(folder: farID) }
            .contains(#"token "ab" has id 2000000000, but the vocabulary holds only 3 tokens (ids must be below 65542)"#))
        // A gap that real vocabularies have (ids left unused) is still read.
        let gap = try Self.folder(["vocab.json": #"{"a": 0, "b": 1, "ab": 60000}"#, "merges.txt": "a b\n"])
        #expect(try BPETokenizer(folder: gap).encode("ab") == [60000])

        for id in ["-1", "3000000000"] {
            let json = try Self.folder(["tokenizer.json": """
                {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
                 "added_tokens": [{"id": \(id), "content": "<x>", "special": true}]}
                """])
            #expect(Self.message { _ = try BPETokenizer(tokenizerJSON: json.appendingPathComponent("tokenizer.json")) }
                .contains(#"added token "<x>" has id \#(id), outside 0..<65544"#))
        }
    }

    @Test func unknownBytesWithoutAnUnknownToken() throws {
        let tokenizer = try BPETokenizer(
            vocabulary: ["a": 0, "b": 1, "ab": 2], merges: [("a", "b")], pattern: .gpt2, normalization: .none)
        #expect(try tokenizer.encode("abab") == [2, 2])
        #expect(throws: TokenizerError.unknownToken("c")) { try tokenizer.encode("abc") }
    }

    @Test func sentencePieceErrors() throws {
        #expect(Self.message { _ = try SentencePieceModel(serialized: [0x0A, 0x05, 0x01]) }.contains("runs past the end"))
        #expect(Self.message { _ = try SentencePieceModel(serialized: Array("not a model".utf8)) }.contains("broken protobuf"))
        #expect(Self.message { _ = try SentencePieceModel(serialized: []) }.contains("holds no pieces"))
        let url = TestData.url("sentencepiece/botchan_en_bpe_1000.model")
        let truncated = Array(try Data(contentsOf: url).prefix(5000))
        #expect(Self.message { _ = try SentencePieceModel(serialized: truncated, source: "cut.model") }.contains("cut.model"))
        #expect(Self.message { _ = try TokenizerLoader.load(URL(fileURLWithPath: "/tmp/none.model")) }.contains("/tmp/none.model"))
    }

    @Test func invalidUTF8() throws {
        #expect(throws: TokenizerError.invalidUTF8(offset: 3)) { try TestData.gpt2.encode(utf8: [0x61, 0x62, 0x63, 0xE4, 0xB8]) }
        #expect(throws: TokenizerError.invalidUTF8(offset: 1)) { try TestData.gpt2.encode(utf8: [0x61, 0xC0, 0x80]) }
        #expect(try TestData.gpt2.encode(utf8: Array("Hello".utf8)) == [15496])
    }

    @Test func unknownIDs() throws {
        let tokenizer = try SentencePieceTests.tokenizer("botchan_en_unigram_1000")
        #expect(throws: TokenizerError.unknownID(1000)) { try tokenizer.decode([1000]) }
    }
}
