import ChorusSpeech
import Testing

@Suite struct SpeechErrorTests {
    @Test func descriptionsSayWhatFailedAndWhatToDo() {
        let cases: [(SpeechError, String)] = [
            (.emptyText, "The text is empty; give some words to speak."),
            (.textTooLong(characters: 1200, limit: 1000),
             "The text has 1200 characters, more than the 1000 allowed in one request; split it or stream it."),
            (.unknownVoice("zz", engine: "kokoro", available: ["af_heart", "jf_alpha"]),
             "Unknown voice 'zz' for kokoro. Available: af_heart, jf_alpha."),
            (.noVoices(engine: "cosyvoice"), "The cosyvoice engine has no voices installed."),
            (.invalidSpeed(3, allowed: 0.5...2), "Speed 3 is out of range; use a value from 0.5 to 2."),
            (.invalidSpeed(1.5, allowed: 1...1), "Speed 1.5 is not available: this engine speaks at 1 only; leave the speed out."),
            (.invalidModelFile(path: "/m/voice.onnx.json", reason: "espeak.voice is missing"),
             "Model file /m/voice.onnx.json is invalid: espeak.voice is missing."),
            (.nothingToSpeak("§§§"), "Nothing speakable in \"§§§\"."),
            // Control and invisible characters are named, not sent to the terminal.
            (.nothingToSpeak("\u{1}\u{7}\u{1B}[2J\u{202E}"), "Nothing speakable in \"U+1U+7U+1B[2JU+202E\"."),
            (.unknownVoice("a\nb", engine: "neutts", available: []), "Unknown voice 'aU+Ab' for neutts. Available: ."),
        ]
        for (error, text) in cases {
            #expect(error.description == text)
        }
    }

    @Test func longTextIsCutInTheMessage() {
        let text = String(repeating: "#", count: 200)
        #expect(SpeechError.nothingToSpeak(text).description == "Nothing speakable in \"\(text.prefix(60))\".")
    }
}
