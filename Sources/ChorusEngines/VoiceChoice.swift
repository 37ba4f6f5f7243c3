import ChorusSpeech

/// The engine and voice that speak a text when the caller names no engine, with the reason, for people
/// (`chorus speak -v`, the server's `X-Chorus-Voice-Reason`). Every surface that speaks without an engine
/// named asks `VoiceChoice.choose(for:voice:among:)`, so they all choose alike.
///
/// The rule, in order:
/// 1. A voice named (not an OpenAI name: the server maps those after choosing) is spoken by the first
///    engine that has it installed; when none has, the default engine, whose refusal names its voices.
/// 2. Otherwise the text's language (`TextLanguage`, from its scripts) is spoken by the first engine, in
///    the engines' order, with an installed voice that speaks it natively: engines whose voices declare
///    their language (`Engine.voicesDeclareLanguage`: Piper's config, Kokoro's voice names). Of its voices
///    that speak it, the first in the engine's order, which is its default voice when that one does.
/// 3. Otherwise (no language known, or no voice speaks it) the default engine (the first) in its
///    default voice, as before there was a choice, and the reason says so.
public struct VoiceChoice: Sendable {
    /// The engine that speaks.
    public let engine: Engine
    /// The voice it speaks in; nil for the engine's default voice (read when it loads).
    public let voice: Voice?
    /// Every installed voice of `engine` that speaks the text's language natively, `voice` first; empty when
    /// the engine was not chosen by language. An OpenAI voice name is mapped among these, so it keeps the
    /// language.
    public let voicesOfTheLanguage: [Voice]
    /// The language the text was taken to be in; nil when its letters did not say or a voice was named.
    public let language: TextLanguage?
    /// Why, in a sentence: "the text is English (Latin letters) and piper's voice en_US-joe-medium speaks
    /// en-US natively".
    public let reason: String

    /// The espeak-ng language an engine that selects one (`.languageSelection`, Kokoro) reads the text in when
    /// no engine was named: Japanese, Mandarin or Korean for a text in it; nil for English (such engines'
    /// own default, en-us) and when no language was told.
    public var espeakLanguage: String? {
        ["ja": "ja", "zh": "cmn", "ko": "ko"][language?.code ?? ""]
    }

    public init(engine: Engine, voice: Voice?, voicesOfTheLanguage: [Voice] = [], language: TextLanguage? = nil,
                reason: String) {
        self.engine = engine
        self.voice = voice
        self.voicesOfTheLanguage = voicesOfTheLanguage
        self.language = language
        self.reason = reason
    }

    /// The engine and voice for `text` (nil when it is not known yet: text read as it arrives) and the
    /// voice the caller named, if any, among `engines` (the first is the default); see the rule above.
    /// Reads the engines' installed voices from disk (a voice config, a voice pack's directory), loads none.
    public static func choose(for text: String?, voice: String? = nil, among engines: [Engine] = Engine.all) -> VoiceChoice {
        precondition(!engines.isEmpty, "there is an engine to choose")
        let fallback = engines[0]
        if let voice {
            for engine in engines {
                if let found = (try? engine.installedVoices())?.first(where: { $0.id == voice }) {
                    return VoiceChoice(engine: engine, voice: found, reason: "the voice \(voice) is \(engine.id)'s")
                }
            }
            return VoiceChoice(engine: fallback, voice: nil,
                               reason: "no engine has a voice \(voice) installed, so the default engine, \(fallback.id)")
        }
        guard let text else {
            return VoiceChoice(engine: fallback, voice: nil, reason: "the text comes as it is read, so its language "
                               + "is not known before it is spoken: the default engine, \(fallback.id)")
        }
        guard let language = TextLanguage.of(text) else {
            return VoiceChoice(engine: fallback, voice: nil, reason: "the text has no Latin, kana, Han or Hangul "
                               + "letter to tell its language by, so the default engine, \(fallback.id)")
        }
        var spoken: [String] = []
        for engine in engines where engine.voicesDeclareLanguage {
            guard let voices = try? engine.installedVoices(), !voices.isEmpty else { continue }
            let speaking = voices.filter { language.isSpoken(by: $0.language) }
            spoken.append("\(engine.id): \(Set(voices.map(\.language)).sorted().joined(separator: ", "))")
            guard let first = speaking.first else { continue }
            return VoiceChoice(engine: engine, voice: first, voicesOfTheLanguage: speaking, language: language,
                               reason: "the text is \(language) and \(engine.id)'s voice \(first.id) speaks \(first.language) natively")
        }
        let installed = spoken.isEmpty ? "no engine declares its voices' languages" : "installed: " + spoken.joined(separator: "; ")
        return VoiceChoice(engine: fallback, voice: nil, language: language,
                           reason: "the text is \(language) and no installed voice speaks it natively (\(installed)), "
                               + "so the default engine, \(fallback.id)")
    }
}
