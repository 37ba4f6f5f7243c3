import Foundation
import Testing
@testable import ChorusText

@Suite struct VocabularyLoadingTests {
    private func fast(_ json: String) -> [String: Int]? {
        Array(json.utf8).withUnsafeBufferPointer { FlatVocabularyJSON.parse($0) }
    }

    @Test(arguments: ["qwen2", "gpt2"])
    func fastReaderAgreesWithFoundationOnTheRealVocabularies(name: String) throws {
        let data = try Data(contentsOf: TestData.url(name).appendingPathComponent("vocab.json"))
        let parsed = try #require(data.withUnsafeBytes { FlatVocabularyJSON.parse($0.bindMemory(to: UInt8.self)) })
        let reference = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        #expect(parsed.count == reference.count)
        #expect(parsed == reference)
    }

    @Test func escapesAndWhitespaceReadAsJSONDefinesThem() throws {
        let json = #" { "a\"b" : 1 ,"\\\/\b\f\n\r\t":2,"\u00e9\u0120":3, "\ud83d\ude00x": 4, "plain é": 0 , "neg": -5}  "#
        let parsed = try #require(fast(json))
        #expect(parsed == ["a\"b": 1, "\\/\u{8}\u{C}\n\r\t": 2, "éĠ": 3, "😀x": 4, "plain é": 0, "neg": -5])
        #expect(parsed == (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Int]))
        #expect(fast("{}") == [:])
    }

    @Test(arguments: [
        #"{"a": 1.5}"#, #"{"a": 1e3}"#, #"{"a": 01}"#, #"{"a": [1]}"#, #"{"a": "1"}"#, #"{"a": 1,}"#,
        #"{"a": 1"#, #"{"a" 1}"#, #"{"\ud800": 1}"#, #"{"\udc00x": 1}"#, #"{"\q": 1}"#, "{\"a\u{1}\": 1}",
        #"{"a": 1} x"#, #"["a"]"#, "", #"{"a": 99999999999999999999}"#,
    ])
    func anythingElseIsLeftToTheGeneralParser(json: String) {
        #expect(fast(json) == nil)
    }

    @Test func invalidUTF8IsLeftToTheGeneralParser() {
        let bytes: [UInt8] = Array(#"{"a"#.utf8) + [0xFF] + Array(#"": 1}"#.utf8)
        #expect(bytes.withUnsafeBufferPointer { FlatVocabularyJSON.parse($0) } == nil)
    }

    @Test func aVocabularyOutsideTheFastShapeStillLoadsOrSaysWhatIsWrong() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-vocab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("vocab.json")
        try Data(#"{"a": 1.0, "b": 2}"#.utf8).write(to: url)     // 1.0 is an integer to Foundation
        #expect(try BPETokenizer.readVocabulary(url) == ["a": 1, "b": 2])
        try Data(#"{"a": -1}"#.utf8).write(to: url)
        let negative = try #require(throws: TokenizerError.self) { try BPETokenizer.readVocabulary(url) }
        #expect("\(negative)".contains("non-negative integer id"))
        try Data(#"{"a": 1"#.utf8).write(to: url)
        let truncated = try #require(throws: TokenizerError.self) { try BPETokenizer.readVocabulary(url) }
        #expect("\(truncated)".contains("not valid JSON"))
    }

    @Test func mergesWithCarriageReturnsAndAVersionLineRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-merges-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("merges.txt")
        try Data("#version: 0.2\r\nĠ t\r\nh e\n\nĠt he".utf8).write(to: url)
        let merges = try BPETokenizer.readMerges(url)
        #expect(merges.map { "\($0.0)|\($0.1)" } == ["Ġ|t", "h|e", "Ġt|he"])
        for bad in ["a b c", "ab", " a", "a "] {
            try Data("\(bad)\n".utf8).write(to: url)
            let error = try #require(throws: TokenizerError.self) { try BPETokenizer.readMerges(url) }
            #expect("\(error)".contains("line 1"))
        }
    }
}
