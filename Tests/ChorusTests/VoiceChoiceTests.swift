import Chorus
import Foundation
import Testing

/// An engine with the voices `voices` on "disk" and no model: enough for choosing, never loaded.
private func standIn(_ id: String, voices: [(id: String, language: String)], declaresLanguage: Bool = true) -> Engine {
    let manifest = ModelManifest(id: id, name: id, files: [], source: "the tests", licence: "none",
                                 installation: .manual("It is made by the tests."))
    let installed = voices.map { Voice(id: $0.id, engine: id, language: $0.language, gender: .unknown) }
    return Engine(id: id, name: id, sampleRate: 24_000, capabilities: [.streaming],
                  models: [ModelCatalog.Entry(name: id, manifest: manifest)], modelDescription: "nothing",
                  defaultModel: { URL(fileURLWithPath: "/nonexistent/\(id)") },
                  installedVoices: { _ in installed }, voicesDeclareLanguage: declaresLanguage,
                  load: { _ in throw CancellationError() })
}

@Suite struct TextLanguageTests {
    @Test func scriptsTellTheLanguage() {
        #expect(TextLanguage.of("Hello there. How are you?") == .english)
        #expect(TextLanguage.of("Ça va très bien, merci.") == .english)  // Latin letters: French is not told apart
        #expect(TextLanguage.of("今日はいい天気ですね。") == .japanese)
        #expect(TextLanguage.of("カタカナだけ") == .japanese)
        #expect(TextLanguage.of("今天天气很好。") == .chinese)
        #expect(TextLanguage.of("東京都") == .chinese)  // Han alone: Japanese without kana is taken for Chinese
        #expect(TextLanguage.of("안녕하세요, 반갑습니다.") == .korean)
        #expect(TextLanguage.of("12:30 — 42 % !?") == nil)
        #expect(TextLanguage.of("Привет, мир.") == nil)
        #expect(TextLanguage.of("") == nil)
    }

    @Test func aMixedTextGoesToItsLargerScript() {
        #expect(TextLanguage.of("Tokyo is written 東京 in Japanese.") == .english)
        #expect(TextLanguage.of("今日はAIの話をします。") == .japanese)
        #expect(TextLanguage.of("我喜欢 AI") == .chinese)
        // Kana anywhere in the Han group makes it Japanese, however few.
        #expect(TextLanguage.of("東京駅の近く") == .japanese)
    }

    @Test func voiceTagsMatchByTheirPrimarySubtag() {
        #expect(TextLanguage.english.isSpoken(by: "en-US") && TextLanguage.english.isSpoken(by: "en_GB"))
        #expect(TextLanguage.japanese.isSpoken(by: "ja") && !TextLanguage.japanese.isSpoken(by: "jv"))
        #expect(!TextLanguage.chinese.isSpoken(by: "und") && !TextLanguage.english.isSpoken(by: ""))
    }
}

@Suite struct VoiceChoiceTests {
    let engines = [
        standIn("kana", voices: [("jf_one", "ja"), ("jm_two", "ja")]),
        standIn("latin", voices: [("en_US-one", "en-US")]),
        standIn("clones", voices: [("mine", "zh")], declaresLanguage: false),
    ]

    @Test func englishGoesToTheEngineWithAnEnglishVoice() {
        let choice = VoiceChoice.choose(for: "Hello there.", among: engines)
        #expect(choice.engine.id == "latin" && choice.voice?.id == "en_US-one")
        #expect(choice.language == .english && choice.voicesOfTheLanguage.map(\.id) == ["en_US-one"])
        #expect(choice.reason == "the text is English (Latin letters) and latin's voice en_US-one speaks en-US natively")
    }

    @Test func japaneseGoesToTheFirstJapaneseVoiceWithTheOthersOfItsLanguage() {
        let choice = VoiceChoice.choose(for: "こんにちは。", among: engines)
        #expect(choice.engine.id == "kana" && choice.voice?.id == "jf_one")
        #expect(choice.voicesOfTheLanguage.map(\.id) == ["jf_one", "jm_two"])
        #expect(choice.espeakLanguage == "ja")
    }

    @Test func mixedTextGoesByItsLargerScript() {
        #expect(VoiceChoice.choose(for: "Say 東京 twice, please.", among: engines).engine.id == "latin")
        #expect(VoiceChoice.choose(for: "これはAIです。", among: engines).engine.id == "kana")
    }

    /// Chinese: only the cloning engine has a voice tagged zh, and its tags are not what it speaks natively.
    @Test func aLanguageNoVoiceSpeaksGoesToTheDefaultEngineAndSaysSo() {
        let choice = VoiceChoice.choose(for: "今天天气很好。", among: engines)
        #expect(choice.engine.id == "kana" && choice.voice == nil && choice.voicesOfTheLanguage.isEmpty)
        #expect(choice.language == .chinese && choice.espeakLanguage == "cmn")
        #expect(choice.reason == "the text is Chinese (Han characters without kana) and no installed voice speaks it natively "
            + "(installed: kana: ja; latin: en-US), so the default engine, kana")
        let nothing = VoiceChoice.choose(for: "42!", among: engines)
        #expect(nothing.engine.id == "kana" && nothing.voice == nil && nothing.language == nil)
        #expect(nothing.reason.contains("no Latin, kana, Han or Hangul letter"))
        let unread = VoiceChoice.choose(for: nil, among: engines)
        #expect(unread.engine.id == "kana" && unread.reason.contains("not known before it is spoken"))
    }

    @Test func aNamedVoiceWinsOverTheLanguage() {
        let choice = VoiceChoice.choose(for: "Hello there.", voice: "jm_two", among: engines)
        #expect(choice.engine.id == "kana" && choice.voice?.id == "jm_two" && choice.reason == "the voice jm_two is kana's")
        // A cloned voice is found by its id too, whatever its engine declares.
        #expect(VoiceChoice.choose(for: "Hello.", voice: "mine", among: engines).engine.id == "clones")
        let unknown = VoiceChoice.choose(for: "Hello.", voice: "nobody", among: engines)
        #expect(unknown.engine.id == "kana" && unknown.voice == nil)
    }

    /// The real models: Piper's English voice for English, Kokoro's Japanese voice pack for Japanese.
    @Test(.enabled(if: (try? Engine.piper.installedVoices()) != nil && (try? Engine.kokoro.installedVoices()) != nil,
                   "Piper or Kokoro not installed in $CHORUS_MODELS; run scripts/setup.sh"))
    func theInstalledModelsSpeakEnglishWithPiperAndJapaneseWithKokoro() {
        let english = VoiceChoice.choose(for: "Hello there. How are you today?")
        #expect(english.engine.id == "piper" && english.voice?.id == "en_US-joe-medium", "\(english.reason)")
        let japanese = VoiceChoice.choose(for: "今日はいい天気ですね。")
        #expect(japanese.engine.id == "kokoro" && japanese.voice?.id == "jf_alpha", "\(japanese.reason)")
        #expect(Engine.all.filter(\.voicesDeclareLanguage).map(\.id) == ["kokoro", "piper"])
    }
}
