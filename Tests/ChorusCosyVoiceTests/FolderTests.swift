import ChorusModels
import Foundation
import Testing
import ChorusSpeech
import ChorusText
@testable import ChorusCosyVoice

@Suite struct ModelFolderTests {
    func copyOfTestModels() throws -> URL {
        let folder = try TestResources.temporaryFolder()
        for name in try FileManager.default.contentsOfDirectory(atPath: TestResources.models.path) {
            try FileManager.default.copyItem(at: TestResources.models.appendingPathComponent(name),
                                             to: folder.appendingPathComponent(name))
        }
        return folder
    }

    @Test func loadsAndChecksEveryTestModel() throws {
        let sessions = try ModelFolder(url: TestResources.models).loadSessions()
        #expect(sessions[.backboneDecode].input(named: "past_key_values")?.shape.count == 5)
        #expect(sessions[.flowEstimator].input(named: "x")?.shape.first == .fixed(2))
    }

    @Test func namesTheMissingFile() throws {
        let folder = try copyOfTestModels()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("hift_decoder_fp32.onnx"))
        #expect(throws: ModelError.missingFile(model: "CosyVoice 3", path: folder.appendingPathComponent("hift_decoder_fp32.onnx").path,
                                                remedy: CosyVoiceSynthesizer.manifest.installation.remedy)) {
            try ModelFolder(url: folder)
        }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("merges.txt"))
        try FileManager.default.copyItem(at: TestResources.models.appendingPathComponent("hift_decoder_fp32.onnx"),
                                         to: folder.appendingPathComponent("hift_decoder_fp32.onnx"))
        let error = try #require(throws: ModelError.self) { try ModelFolder(url: folder) }
        #expect(error.description.contains("merges.txt"))
    }

    @Test func rejectsAModelWithTheWrongInterface() throws {
        let folder = try copyOfTestModels()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("text_embedding_fp32.onnx")
        try FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: folder.appendingPathComponent("campplus.onnx"), to: target)
        let error = try #require(throws: CosyVoiceError.self) { try ModelFolder(url: folder).loadSessions() }
        guard case .unexpectedSignature(let file, let problem) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(file == "text_embedding_fp32.onnx")
        #expect(problem.contains("input_ids"))
    }
}

@Suite struct VoicePromptTests {
    @Test func readsTheSeedFormat() throws {
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        #expect(voice.speakerEmbedding.count == 192)
        #expect(voice.speechTokens.count == 20)
        #expect(voice.melFrames == 41)
        #expect(voice.text == "希望你以后能够做的比我还好呦。")
    }

    @Test func roundTripsThroughAFolder() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let voice = VoicePrompt(speakerEmbedding: (0..<192).map { Float($0) * 0.5 - 3 }, speechTokens: [0, 6560, 42],
                                mel: (0..<(80 * 6)).map { -Float($0) / 7 }, text: "粤语 test")
        try voice.write(to: folder.appendingPathComponent("new"))
        #expect(try VoicePrompt(contentsOf: folder.appendingPathComponent("new")) == voice)
        let original = try VoicePrompt(contentsOf: TestResources.voice)
        try original.write(to: folder.appendingPathComponent("copy"))
        for file in VoicePrompt.File.allCases {
            let a = try Data(contentsOf: TestResources.voice.appendingPathComponent(file.rawValue))
            let b = try Data(contentsOf: folder.appendingPathComponent("copy").appendingPathComponent(file.rawValue))
            #expect(a == b, "\(file.rawValue) written byte for byte")
        }
    }

    @Test func aVoiceWithImpossibleValuesIsRefusedWhenLoadedOrAdded() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try VoicePrompt(contentsOf: TestResources.voice)
        var cases: [(String, VoicePrompt, String)] = []
        for (index, value) in [(0, Float.nan), (191, Float.infinity)] {
            var bad = good
            bad.speakerEmbedding[index] = value
            cases.append(("embedding\(index)", bad, "speaker embedding value \(index) is"))
        }
        var zeros = good
        zeros.speakerEmbedding = [Float](repeating: 0, count: 192)
        cases.append(("zeros", zeros, "all zeros"))
        for token in [-1, 6561, 6761, Int(Int32.max)] {
            var bad = good
            bad.speechTokens[3] = token
            cases.append(("token\(token)", bad, "outside the speech tokens 0-6560"))
        }
        for value in [Float.nan, -Float.infinity, 1e30] {
            var bad = good
            bad.mel[81] = value
            cases.append(("mel\(value)", bad, "prompt mel value 81 is"))
        }
        for (name, prompt, message) in cases {
            let written = folder.appendingPathComponent(name)
            try prompt.write(to: written)
            let loaded = try #require(throws: CosyVoiceError.self) { try VoicePrompt(contentsOf: written) }
            #expect(loaded.description.contains(message), "\(name): \(loaded)")
            let added = try #require(throws: CosyVoiceError.self) {
                try VoiceCatalog.add(prompt, id: "added-\(name.filter(\.isLetter))", language: "zh", gender: .female,
                                     to: folder.appendingPathComponent("catalog"))
            }
            #expect(added.description.contains(message), "\(name): \(added)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("catalog").path))
        #expect(good.valueProblem == nil)
    }

    @Test func alignsPromptMelAndTokens() {
        let tokens = Array(0..<20)
        let longMel = VoicePrompt(speakerEmbedding: [], speechTokens: tokens, mel: [Float](repeating: 0, count: 80 * 41), text: "x")
        #expect(longMel.aligned().melFrames == 40)
        #expect(longMel.aligned().speechTokens == tokens)
        let shortMel = VoicePrompt(speakerEmbedding: [], speechTokens: tokens, mel: [Float](repeating: 0, count: 80 * 31), text: "x")
        #expect(shortMel.aligned().speechTokens == Array(0..<15))
        #expect(shortMel.aligned().melFrames == 30)
    }

    @Test func reportsBrokenFolders() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: CosyVoiceError.self) { try VoicePrompt(contentsOf: folder) }
        #expect(error.description.contains("speaker_embedding.bin"))
    }

    @Test func tokenizerFromTheModelFolderMatchesEndOfPromptWhole() throws {
        let tokenizer = try Frontend.loadTokenizer(from: TestResources.models)
        let endOfPrompt = try #require(tokenizer.id(of: "<|endofprompt|>"))
        let prompt = try Frontend(tokenizer: tokenizer).promptTokens(transcript: "the", instruction: nil)
        #expect(prompt.filter { $0 == endOfPrompt }.count == 1)
        #expect(try tokenizer.decode(prompt) == "You are a helpful assistant.<|endofprompt|>the")
        #expect(try tokenizer.decode(tokenizer.encode("in")) == "in")
    }

    @Test func promptTextGetsTheInstructionOnce() {
        #expect(Frontend.promptText(transcript: "你好") == "You are a helpful assistant.<|endofprompt|>你好")
        #expect(Frontend.promptText(transcript: "Speak slowly.<|endofprompt|>你好") == "Speak slowly.<|endofprompt|>你好")
    }

    @Test func instructionPromptIsUpstreamsInstruct2Prompt() {
        // CosyVoice 3's README: inference_instruct2(..., 'You are a helpful assistant. 请用广东话表达。<|endofprompt|>', ...)
        #expect(Frontend.instructionPrompt(Dialect.cantonese.instruction)
                == "You are a helpful assistant. 请用广东话表达。<|endofprompt|>")
        #expect(Frontend.instructionPrompt("Be brief.<|endofprompt|>") == "Be brief.<|endofprompt|>")
    }
}

@Suite struct DialectTests {
    @Test func namesInEnglishOrChinese() {
        #expect(Dialect(name: "Cantonese") == .cantonese)
        #expect(Dialect(name: "四川话") == .sichuanese)
        #expect(Dialect(name: " shanghainese ") == .shanghainese)
        #expect(Dialect(name: "klingon") == nil)
        #expect(Dialect.allCases.count == 17)
        #expect(Set(Dialect.allCases.map(\.chineseName)).count == 17)
    }

    /// Upstream's instruction list names 湖南话 beside the sixteen of the v3 documentation.
    @Test func hunanIsInUpstreamsInstructionList() {
        #expect(Dialect(name: "湖南话") == .hunan)
        #expect(Dialect(name: "hunan") == .hunan)
        #expect(Dialect.hunan.instruction == "请用湖南话表达。")
        #expect(Dialect.hunan.languageTag == "hsn")
    }

    @Test func instructionAndLanguageTag() {
        #expect(Dialect.sichuanese.instruction == "请用四川话表达。")
        #expect(Dialect.cantonese.languageTag == "yue")
        #expect(Dialect.minnan.languageTag == "nan")
        #expect(Dialect.tianjin.languageTag == "zh")
    }
}

@Suite struct VoiceCatalogTests {
    @Test func addsAndListsVoicesWithTheirDetails() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        try VoiceCatalog.add(prompt, id: "longjiaxin_v3", language: "yue", gender: .female, summary: "Cantonese", to: folder)
        try VoiceCatalog.add(prompt, id: "a-first", language: "zh", gender: .male, to: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("not-a-voice"), withIntermediateDirectories: true)
        let entries = VoiceCatalog.entries(in: folder)
        #expect(entries.map(\.voice.id) == ["a-first", "longjiaxin_v3"])
        #expect(VoiceCatalog.contents(of: folder).unusable
            == [UnusableVoice(id: "not-a-voice", problem: "it is incomplete (speaker_embedding.bin, prompt_tokens.bin, prompt_mel.bin, prompt_text.txt missing)")])
        #expect(entries[1].voice.language == "yue")
        #expect(entries[1].voice.gender == .female)
        #expect(entries[1].voice.summary == "Cantonese")
        #expect(entries[1].duration == 0.8)          // 20 tokens at 25 per second
        #expect(try VoicePrompt(contentsOf: entries[1].folder) == prompt)

        #expect(throws: SpeechError.voiceExists("a-first", engine: "cosyvoice")) {
            try VoiceCatalog.add(prompt, id: "a-first", language: "zh", gender: .male, to: folder)
        }
        try VoiceCatalog.add(prompt, id: "a-first", language: "en", gender: .male, to: folder, replacing: true)
        #expect(VoiceCatalog.entries(in: folder)[0].voice.language == "en")
        let invalid = try #require(throws: SpeechError.self) {
            try VoiceCatalog.add(prompt, id: "../escape", language: "zh", gender: .male, to: folder)
        }
        #expect(invalid.description.contains("letters, digits"))
    }

    @Test func keepsAVoicesInstruction() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        try VoiceCatalog.add(prompt, id: "mine-yue", language: "yue", gender: .female,
                             instruction: Dialect.cantonese.instruction, to: folder)
        try VoiceCatalog.add(prompt, id: "mine", language: "zh", gender: .female, to: folder)
        let entries = VoiceCatalog.entries(in: folder)
        #expect(entries.map(\.instruction) == [nil, "请用广东话表达。"])

        let empty = try #require(throws: CosyVoiceError.self) {
            try VoiceCatalog.add(prompt, id: "blank", language: "zh", gender: .male, instruction: "  ", to: folder)
        }
        #expect(empty.description.contains("instruction is empty"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("blank").path))

        // A hand-edited voice.json with an empty instruction makes that voice unusable, not the others.
        try Data(#"{"instruction": ""}"#.utf8).write(to: entries[1].folder.appendingPathComponent(VoiceCatalog.detailsFile))
        let edited = VoiceCatalog.contents(of: folder)
        #expect(edited.entries.map(\.voice.id) == ["mine"])
        #expect(edited.unusable.map(\.id) == ["mine-yue"])
        #expect(edited.unusable[0].problem.contains("empty instruction"))
    }

    @Test func aVoiceBeingWrittenIsNotListedAndNoStagingIsLeftBehind() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        // What an interrupted add leaves: a complete-looking staging folder under a hidden name.
        try prompt.write(to: folder.appendingPathComponent(".half.1234.partial"))
        #expect(VoiceCatalog.entries(in: folder).isEmpty)
        try VoiceCatalog.add(prompt, id: "whole", language: "zh", gender: .female, to: folder)
        try VoiceCatalog.add(prompt, id: "whole", language: "yue", gender: .female, to: folder, replacing: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".half.1234.partial", "whole"])
        #expect(VoiceCatalog.entries(in: folder).map(\.voice.language) == ["yue"])
    }

    @Test func idsAreNormalisedAndLookAlikesRefused() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        // Added decomposed, stored composed (NFC).
        try VoiceCatalog.add(prompt, id: "cafe\u{301}", language: "fr", gender: .female, to: folder)
        let stored = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(stored.map { Array($0.unicodeScalars) } == [Array("caf\u{E9}".unicodeScalars)])

        func refusal(_ id: String) throws -> String {
            try #require(throws: SpeechError.self) {
                try VoiceCatalog.add(prompt, id: id, language: "fr", gender: .female, to: folder)
            }.description
        }
        #expect(try refusal("caf\u{E9}").contains("already has a voice"))
        #expect(try refusal("cafe\u{301}").contains("already has a voice"))
        try VoiceCatalog.add(prompt, id: "mine", language: "zh", gender: .female, to: folder)
        #expect(try refusal("ｍｉｎｅ").contains("only in Unicode form or width"))   // full-width letters
        try VoiceCatalog.add(prompt, id: "ﬁne", language: "zh", gender: .female, to: folder)  // a ligature
        #expect(try refusal("fine").contains("only in Unicode form or width"))
        #expect(try refusal("mi\u{200B}ne").contains("invisible character U+200B"))
        #expect(try refusal("mi\u{2060}ne").contains("invisible character U+2060"))
        #expect(try refusal(String(repeating: "a", count: 129)).contains("over the limit of 128"))
        #expect(try refusal("").contains("empty"))
        #expect(try refusal("-x").contains("letters, digits"))
        #expect(try refusal("a b").contains("letters, digits"))
        #expect(VoiceCatalog.entries(in: folder).map(\.voice.id).count == 3)

        let file = folder.appendingPathComponent("voices-file")
        try Data("x".utf8).write(to: file)
        let notAFolder = try #require(throws: SpeechError.self) {
            try VoiceCatalog.add(prompt, id: "new", language: "zh", gender: .female, to: file)
        }
        #expect(notAFolder.description == "\(file.path) should be the folder of voices but is a file; move it away.")
    }

    @Test func lookAlikeFoldersAlreadyOnDiskAreOneVoice() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        // Written by hand or an older Chorus: the same id composed, decomposed and full-width.
        for name in ["caf\u{E9}", "cafe\u{301}", "ｃａｆé", "other"] {
            try prompt.write(to: folder.appendingPathComponent(name, isDirectory: true))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 4)
        let ids = VoiceCatalog.entries(in: folder).map(\.voice.id)
        #expect(ids.count == 2)
        // The look-alikes are reported, so a user sees why a folder is not listed.
        #expect(VoiceCatalog.contents(of: folder).unusable.count == 2)
        #expect(ids.last == "other")
        #expect(Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +).values.allSatisfy { $0 == 1 })
    }

    @Test func aBrokenVoiceLeavesTheOthersUsableAndSaysWhatIsWrong() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let prompt = try VoicePrompt(contentsOf: TestResources.voice)
        for id in ["good", "garbled", "partial"] {
            try VoiceCatalog.add(prompt, id: id, language: "zh", gender: .female, to: folder)
        }
        try Data("{not json".utf8).write(to: folder.appendingPathComponent("garbled/\(VoiceCatalog.detailsFile)"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("partial/\(VoicePrompt.File.promptMel.rawValue)"))

        let engine = try CosyVoiceSynthesizer(models: ModelFolder(url: TestResources.models), voicesFolder: folder)
        #expect(engine.voices.map(\.id) == ["good"])
        #expect(engine.unusableVoices.map(\.id) == ["garbled", "partial"])
        #expect(throws: SpeechError.unusableVoice("garbled", engine: "cosyvoice",
                                                  problem: "its voice.json is not valid JSON of a voice description")) {
            try engine.voice("garbled")
        }
        let incomplete = try #require(throws: SpeechError.self) { try engine.voice("partial") }
        #expect("\(incomplete)" == "The cosyvoice voice 'partial' cannot be used: it is incomplete (prompt_mel.bin missing); "
            + "add it again with `chorus voice add` or remove its folder.")
        #expect(throws: SpeechError.self) { try engine.voice("nobody") }
        _ = try engine.voicePrompt("good")
    }

    @Test func aMissingModelFolderSaysHowToGetIt() throws {
        let folder = try TestResources.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: ModelError.self) { try CosyVoiceSynthesizer(folder: folder) }
        #expect(error.description.contains("text_embedding_fp32.onnx"))
        #expect(error.description.contains("chorus models pull cosyvoice"))
    }
}
