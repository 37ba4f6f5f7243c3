import ChorusText
import Foundation
import Testing
@testable import ChorusChatterbox

@Suite struct TextTests {
    /// upstream's punc_norm on cases that exercise each of its steps.
    @Test func puncNormEqualsUpstream() throws {
        let text = try TestResources.decoded("text.json", as: TestResources.Text.self)
        #expect(text.puncNorm.count >= 20)
        for pair in text.puncNorm {
            #expect(PunctuationNormalizer.normalize(pair[0]) == pair[1], "\(pair[0].debugDescription)")
        }
    }

    /// upstream's AutoTokenizer (GPT-2 files, tags as added tokens with their strip flags, truncation) after
    /// punc_norm; Chorus on the export-form file gives the same ids shifted by 6563, then 6561.
    @Test(arguments: ["model", "plain"]) func idsEqualUpstream(folder: String) throws {
        let text = try TestResources.decoded("text.json", as: TestResources.Text.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.root.appendingPathComponent(folder))
        #expect(encoder.form == (folder == "model" ? .shifted : .plain))
        #expect(encoder.maximumTextTokens == text.modelMaxLength)
        for item in text.tokens {
            let expected = item.ids.map(EmbeddingIDs.row(ofTextID:)) + [EmbeddingIDs.startOfSpeech]
            #expect(try encoder.ids(for: item.text) == expected, "\(item.text)")
        }
        // One case is cut at model_max_length, as upstream's truncation=True does.
        #expect(text.tokens.contains { $0.ids.count == text.modelMaxLength })
    }

    /// Every bracket tag is one token, matched whole, with the ids the tokenizer file gives it.
    @Test func tagsAreSingleTokens() throws {
        let text = try TestResources.decoded("text.json", as: TestResources.Text.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.model)
        #expect(text.tags.count == 19)
        for (tag, id) in text.tags {
            #expect(try encoder.ids(forNormalized: tag) == [EmbeddingIDs.row(ofTextID: id), EmbeddingIDs.startOfSpeech], "\(tag)")
        }
        // An unknown bracket word is ordinary text.
        #expect(try encoder.ids(forNormalized: "[tag]").count > 2)
    }

    /// A tokenizer file `source` with its post-processor replaced by one appending `suffix` (none if empty).
    static func folder(from source: URL, appending suffix: [Int]) throws -> URL {
        let data = try Data(contentsOf: source.appendingPathComponent("tokenizer.json"))
        var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        if suffix.isEmpty {
            root["post_processor"] = NSNull()
        } else {
            root["post_processor"] = [
                "type": "TemplateProcessing",
                "single": [["Sequence": ["id": "A", "type_id": 0]], ["SpecialToken": ["id": "<s>", "type_id": 0]]],
                "special_tokens": ["<s>": ["id": "<s>", "ids": suffix, "tokens": ["<s>"]]],
            ] as [String: Any]
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-tok-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: root).write(to: folder.appendingPathComponent("tokenizer.json"))
        return folder
    }

    @Test func conventionMismatchIsRefused() throws {
        // GPT-2 ids with start-of-speech appended: text rows would collide with speech ids.
        let appended = try Self.folder(from: TestResources.plain, appending: [EmbeddingIDs.startOfSpeech])
        // Shifted ids with nothing appended: the prefill would miss start-of-speech.
        let bare = try Self.folder(from: TestResources.model, appending: [])
        let other = try Self.folder(from: TestResources.model, appending: [7])
        defer { for url in [appended, bare, other] { try? FileManager.default.removeItem(at: url) } }
        for (folder, words) in [(appended, "appends start-of-speech (6561) but numbers"), (bare, "neither GPT-2's 0"),
                                (other, "appends [7]")] {
            do {
                _ = try ChatterboxTextEncoder(folder: folder)
                Issue.record("\(folder.lastPathComponent) was accepted")
            } catch let error as ChatterboxError {
                #expect("\(error)".contains(words), "\(error)")
                #expect("\(error)".contains(folder.path))
            }
        }
    }

    /// The seed's chunker: at most 300 characters, sentences packed, then clauses, then spaces.
    @Test func chunkerBoundaries() {
        let sentence = "This sentence has exactly fifty characters in it. "
        #expect(sentence.count == 50)
        let text = String(repeating: sentence, count: 7)
        let chunks = ChatterboxTextEncoder.chunks(of: text)
        #expect(chunks.count == 2)
        #expect(chunks.allSatisfy { $0.count <= 300 })
        #expect(chunks[0] == String(repeating: sentence, count: 6).trimmingCharacters(in: .whitespaces))
        // A long sentence is cut at a clause mark, then between words.
        let clauses = String(repeating: "a clause of words, ", count: 20) + "end."
        let pieces = ChatterboxTextEncoder.chunks(of: clauses)
        #expect(pieces.count > 1 && pieces.allSatisfy { $0.count <= 300 })
        #expect(pieces.dropLast().allSatisfy { $0.hasSuffix(",") })
        let words = String(repeating: "word ", count: 100)
        let cut = ChatterboxTextEncoder.chunks(of: words)
        #expect(cut.count == 2 && cut.allSatisfy { $0.count <= 300 && !$0.hasSuffix(" ") })
        #expect(ChatterboxTextEncoder.chunks(of: "   ").isEmpty)
    }
}
