import ChorusModels
import Foundation
import Testing
@testable import ChorusText

/// The wetext grammars installed by scripts/setup.sh (`$CHORUS_MODELS/wetext`), loaded once.
enum InstalledWeText {
    static let folder = ModelStore.current.folder(for: WeTextNormalizer.manifest)
    static let installed = FileManager.default.fileExists(atPath: folder.appendingPathComponent(".complete").path)
    static let reason: Comment = "wetext grammars not installed in $CHORUS_MODELS/wetext; run scripts/setup.sh"
    static let normalizer: WeTextNormalizer? = installed ? try? WeTextNormalizer(folder: folder) : nil
}

/// One text of Tests/TextTestData/wetext/normalize.golden.json (made by scripts/testdata/make_wetext_goldens.py).
struct WeTextGolden: Decodable, CustomTestStringConvertible {
    var text: String
    var language: String
    var tagged: String?
    var reordered: String?
    var normalized: String?
    var error: String?

    var testDescription: String { text.debugDescription }

    static let all: [WeTextGolden] = {
        struct File: Decodable { var cases: [WeTextGolden] }
        let data = try! Data(contentsOf: TestData.url("wetext/normalize.golden.json"))
        return try! JSONDecoder().decode(File.self, from: data).cases
    }()
}

@Suite("wetext normaliser against the Python wetext + kaldifst goldens")
struct WeTextNormalizerTests {
    @Test("language pick and should-normalise rule match wetext", arguments: WeTextGolden.all)
    func languageRule(golden: WeTextGolden) {
        let prepared = PythonStringRules.strip(golden.text)
        let language = WeTextNormalizer.language(of: prepared)
        #expect(language.rawValue == golden.language)
        #expect(WeTextNormalizer.shouldNormalize(prepared, language: language) == (golden.tagged != nil))
    }

    @Test("token reordering matches wetext's TokenParser", arguments: WeTextGolden.all.filter { $0.reordered != nil })
    func reorder(golden: WeTextGolden) throws {
        let parser: WeTextTokenParser = golden.language == "zh" ? .chinese : .english
        #expect(try parser.reorder(golden.tagged!) == golden.reordered)
    }

    @Test("tagger output matches kaldifst", .enabled(if: InstalledWeText.installed, InstalledWeText.reason),
          arguments: WeTextGolden.all.filter { $0.tagged != nil })
    func tagger(golden: WeTextGolden) throws {
        let normalizer = try #require(InstalledWeText.normalizer)
        let language = WeTextNormalizer.Language(rawValue: golden.language)!
        if golden.tagged!.isEmpty {
            #expect(throws: WeightedFSTError.self) { try normalizer.tag(golden.text, language: language) }
        } else {
            #expect(try normalizer.tag(golden.text, language: language) == golden.tagged)
        }
    }

    @Test("normalised text matches wetext", .enabled(if: InstalledWeText.installed, InstalledWeText.reason),
          arguments: WeTextGolden.all)
    func normalize(golden: WeTextGolden) throws {
        let normalizer = try #require(InstalledWeText.normalizer)
        if let expected = golden.normalized {
            #expect(try normalizer.normalize(golden.text) == expected)
        } else {
            // wetext's tagger has no path for the text and Python fails; Chorus says so with a typed error.
            #expect(throws: WeightedFSTError.self) { try normalizer.normalize(golden.text) }
        }
    }
}
