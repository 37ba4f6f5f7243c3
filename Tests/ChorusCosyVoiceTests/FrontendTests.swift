import Foundation
import Testing
import ChorusModels
import ChorusText
@testable import ChorusCosyVoice

/// Tests/ChorusCosyVoiceTests/Resources/frontend/frontend.golden.json, made by
/// scripts/testdata/make_wetext_goldens.py with upstream CosyVoice's own `CosyVoiceFrontEnd.text_normalize`,
/// `spell_out_number` and `split_paragraph` (imported from the commit the golden records) over wetext 0.1.8,
/// kaldifst 1.8.3 and inflect 7.6.0.
struct FrontendGolden: Decodable {
    struct Result: Decodable {
        var pieces: [String]?
        var prompt: String?
        var error: String?
    }
    struct Case: Decodable, CustomTestStringConvertible {
        var text: String
        var wetext: Result
        var plain: Result
        var testDescription: String { text.debugDescription }
    }
    struct Number: Decodable, CustomTestStringConvertible {
        var digits: String
        var words: String?
        var error: String?
        var testDescription: String { digits }
    }
    struct Split: Decodable, CustomTestStringConvertible {
        var language: String
        var text: String
        var pieces: [String]
        var testDescription: String { String(text.prefix(30)).debugDescription }
    }
    var cases: [Case]
    var numbers: [Number]
    var splits: [Split]

    static let file: FrontendGolden = try! JSONDecoder().decode(
        FrontendGolden.self,
        from: Data(contentsOf: TestResources.root.appendingPathComponent("frontend/frontend.golden.json")))

    /// The Qwen2 vocabulary of the Text tests, loaded as CosyVoice loads its tokenizer; the golden
    /// measured English with the same vocabulary.
    static let tokenizer: any TextTokenizer = try! Frontend.loadTokenizer(
        from: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TextTestData/qwen2"))

    /// The wetext grammars installed by scripts/setup.sh, if any.
    static let wetextFolder = CosyVoiceSynthesizer.defaultTextNormalizerFolder
    static let wetextInstalled = FileManager.default.fileExists(atPath: wetextFolder.appendingPathComponent(".complete").path)
    static let wetext: WeTextNormalizer? = wetextInstalled ? try? WeTextNormalizer(folder: wetextFolder) : nil
}

@Suite("CosyVoice front end against upstream's text_normalize")
struct FrontendGoldenTests {
    func check(_ expected: FrontendGolden.Result, fallback: FrontendGolden.Result, _ normalizer: CosyVoiceTextNormalizer,
               _ text: String) throws {
        switch expected.error {
        case nil:
            #expect(try normalizer.pieces(of: text) == expected.pieces)
            #expect(try normalizer.normalized(text) == expected.prompt)
        case "AssertionError"?:
            // Upstream fails when wetext's tagger has no path; Chorus keeps the text unnormalised.
            #expect(try normalizer.pieces(of: text) == fallback.pieces)
            #expect(try normalizer.normalized(text) == fallback.prompt)
        default:
            // Upstream fails on text that normalises to nothing; Chorus gives no pieces.
            #expect(try normalizer.pieces(of: text) == [])
            #expect(try normalizer.normalized(text) == "")
        }
    }

    @Test("without wetext: upstream's path when no normaliser is installed", arguments: FrontendGolden.file.cases)
    func plain(golden: FrontendGolden.Case) throws {
        try check(golden.plain, fallback: golden.plain,
                  CosyVoiceTextNormalizer(wetext: nil, tokenizer: FrontendGolden.tokenizer), golden.text)
    }

    @Test("with wetext", .enabled(if: FrontendGolden.wetextInstalled,
                                  "wetext grammars not installed in $CHORUS_MODELS/wetext; run scripts/setup.sh"),
          arguments: FrontendGolden.file.cases)
    func withWeText(golden: FrontendGolden.Case) throws {
        let wetext = try #require(FrontendGolden.wetext)
        try check(golden.wetext, fallback: golden.plain,
                  CosyVoiceTextNormalizer(wetext: wetext, tokenizer: FrontendGolden.tokenizer), golden.text)
    }

    @Test("spell_out_number words match inflect", arguments: FrontendGolden.file.numbers)
    func numberWords(golden: FrontendGolden.Number) {
        #expect(EnglishNumberWords.words(for: golden.digits.unicodeScalars) == golden.words)
    }

    @Test("split_paragraph matches upstream", arguments: FrontendGolden.file.splits)
    func splitParagraph(golden: FrontendGolden.Split) throws {
        let language: CosyVoiceTextNormalizer.Language = golden.language == "zh" ? .chinese : .other
        let pieces = try CosyVoiceTextNormalizer.splitParagraph(Array(golden.text.unicodeScalars), language: language) {
            language == .chinese ? $0.count : try FrontendGolden.tokenizer.encode(String(String.UnicodeScalarView($0))).count
        }
        #expect(pieces.map { String(String.UnicodeScalarView($0)) } == golden.pieces)
    }
}

@Suite("CosyVoice front-end steps")
struct FrontendStepTests {
    typealias Steps = CosyVoiceTextNormalizer

    func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }
    func string(_ scalars: [Unicode.Scalar]) -> String { String(String.UnicodeScalarView(scalars)) }

    @Test func replaceBlankKeepsSpacesBetweenASCIIOnly() {
        #expect(string(Steps.replaceBlank(scalars("你好 世界"))) == "你好世界")
        #expect(string(Steps.replaceBlank(scalars("iPhone 十五 Pro"))) == "iPhone十五Pro")
        #expect(string(Steps.replaceBlank(scalars("a b  c"))) == "a bc")
        #expect(string(Steps.replaceBlank(scalars("用 Python 写"))) == "用Python写")
        // The code point before the first is the last one, as Python's text[-1].
        #expect(string(Steps.replaceBlank(scalars(" ab"))) == " ab")
        #expect(string(Steps.replaceBlank(scalars(" a你"))) == "a你")
    }

    @Test func replaceCornerMark() {
        #expect(string(Steps.replaceCornerMark(scalars("5m²和3m³"))) == "5m平方和3m立方")
    }

    @Test func removeBracket() {
        #expect(string(Steps.removeBracket(scalars("（注意）【重点】`code`——完"))) == "注意重点code 完")
        #expect(string(Steps.removeBracket(scalars("(半角)[保留]"))) == "(半角)[保留]")
    }

    @Test func trailingCommasBecomeAFullStop() {
        #expect(string(Steps.closingTrailingCommas(scalars("好，,、"))) == "好。")
        #expect(string(Steps.closingTrailingCommas(scalars("好，不好"))) == "好，不好")
    }

    @Test func replacingIsPythonsStrReplace() {
        #expect(string(Steps.replacing(scalars("a - b - c"), " - ", with: "，")) == "a，b，c")
        #expect(string(Steps.replacing(scalars("aaa"), "aa", with: "b")) == "ba")
        #expect(string(Steps.replacing(scalars("1.5.2"), ".", with: "。")) == "1。5。2")
    }

    @Test func spellOutNumbersReadsEveryRun() {
        #expect(string(Steps.spellOutNumbers(scalars("I have 3 cats and 12 dogs"))) == "I have three cats and twelve dogs")
        #expect(string(Steps.spellOutNumbers(scalars("3.5"))) == "three.five")
        #expect(string(Steps.spellOutNumbers(scalars("x²"))) == "xzero")
        let huge = "1" + String(repeating: "0", count: 36)
        #expect(string(Steps.spellOutNumbers(scalars("n=\(huge)"))) == "n=\(huge)", "inflect cannot name it; kept")
    }

    @Test func onlyPunctuation() {
        #expect(Steps.isOnlyPunctuation([]))
        #expect(Steps.isOnlyPunctuation(scalars("。！？…$+")))
        #expect(!Steps.isOnlyPunctuation(scalars("。 ")))
        #expect(!Steps.isOnlyPunctuation(scalars("好。")))
    }

    @Test func splitParagraphCountsChineseInCodePoints() throws {
        let sentence = String(repeating: "字", count: 19) + "。"
        let text = scalars(String(repeating: sentence, count: 5))
        let pieces = try Steps.splitParagraph(text, language: .chinese) { $0.count }
        #expect(pieces.map(\.count) == [80, 20])
        let withShortTail = scalars(String(repeating: sentence, count: 4) + "尾。")
        #expect(try Steps.splitParagraph(withShortTail, language: .chinese) { $0.count }.map(\.count) == [82])
    }

    @Test func markupAndEmptyTextPassWhole() throws {
        let normalizer = CosyVoiceTextNormalizer(wetext: nil, tokenizer: FrontendGolden.tokenizer)
        let prompt = Frontend.promptText(transcript: "今天是2024年。")
        #expect(try normalizer.normalized(prompt) == prompt)
        #expect(try normalizer.pieces(of: " <|endofprompt|> 1 ") == [" <|endofprompt|> 1 "])
        #expect(try normalizer.pieces(of: "") == [""])
        #expect(try normalizer.pieces(of: "   ") == [])
    }
}

@Suite("CosyVoice text normalisation choice")
struct TextNormalizationChoiceTests {
    func engine(_ choice: CosyVoiceSynthesizer.TextNormalization) throws -> CosyVoiceSynthesizer {
        try CosyVoiceSynthesizer(models: ModelFolder(url: TestResources.models), voicesFolder: TestResources.root,
                                 tokenizer: FrontendGolden.tokenizer, configuration: .init(textNormalization: choice))
    }

    @Test func disabledSkipsWeTextAndSaysSo() throws {
        let engine = try engine(.disabled)
        #expect(engine.frontend.normalizer.wetext == nil)
        #expect(engine.textNormalizationNote.contains("without wetext"))
        #expect(try engine.pieces(of: "今天是2024年。") == ["今天是2024年。"])
    }

    @Test func aNamedFolderMustHoldTheGrammars() {
        let folder = URL(fileURLWithPath: "/nonexistent/wetext")
        #expect(throws: WeTextNormalizer.manifest.missing(folder.path + "/zh/tn/tagger.fst")) {
            try engine(.wetext(folder: folder))
        }
    }

    @Test(.enabled(if: FrontendGolden.wetextInstalled, "wetext grammars not installed in $CHORUS_MODELS/wetext; run scripts/setup.sh"))
    func installedGrammarsAreUsedByDefault() throws {
        let engine = try engine(.automatic)
        #expect(engine.frontend.normalizer.wetext != nil)
        #expect(try engine.pieces(of: "今天是2024年。") == ["今天是二零二四年。"])
    }
}
