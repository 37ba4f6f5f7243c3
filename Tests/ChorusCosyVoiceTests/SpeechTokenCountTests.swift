import ChorusONNX
import Foundation
import Testing
@testable import ChorusCosyVoice

/// A forced speech-token count (Configuration.speechTokens, for benchmarks on random-weight models of the real
/// sizes, which stop anywhere): exactly that many tokens, none of them a stop id, on both sides of where the
/// model would have stopped.
@Suite struct SpeechTokenCountTests {
    @Test func forcedLengthDrawsExactlyThatManyTokens() throws {
        let golden = try TestResources.goldenCase()
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()
        let model = try LanguageModel(sessions: ModelFolder(url: TestResources.models).loadSessions())
        func tokens(_ length: Int?) throws -> [Int] {
            try model.generate(LanguageModel.Request(promptText: golden.promptTextTokens, text: golden.textTokens,
                                                     promptSpeech: voice.speechTokens, seed: golden.samplingSeed,
                                                     length: length), onToken: { _ in })
        }
        let natural = try tokens(nil)
        #expect(natural == golden.sampledTokens)
        for length in [5, natural.count + 40] {
            let forced = try tokens(length)
            #expect(forced.count == length)
            #expect(!forced.contains { LanguageModel.stopTokens.contains($0) })
        }
    }

    @Test func synthesizerForcesItsConfiguredCount() throws {
        let golden = try TestResources.goldenCase()
        let engine = try CosyVoiceSynthesizer(folder: TestResources.models,
                                              configuration: .init(textNormalization: .disabled, speechTokens: 31))
        let result = try engine.synthesize(promptText: golden.promptTextTokens, text: golden.textTokens,
                                           voice: try VoicePrompt(contentsOf: TestResources.voice))
        #expect(result.sampledTokens.count == 31)
        #expect(result.mel.frames == 2 * result.tokens.count)
    }

    @Test func environmentValueIsACountOrAnError() throws {
        let name = CosyVoiceSynthesizer.Configuration.speechTokensVariable
        #expect(try CosyVoiceSynthesizer.Configuration.speechTokens(in: [:]) == nil)
        #expect(try CosyVoiceSynthesizer.Configuration.speechTokens(in: [name: ""]) == nil)
        #expect(try CosyVoiceSynthesizer.Configuration.speechTokens(in: [name: "1000"]) == 1000)
        for bad in ["0", "-5", "ten", "1e3", "100001"] {
            #expect(throws: CosyVoiceError.invalidSpeechTokens(value: bad)) {
                try CosyVoiceSynthesizer.Configuration.speechTokens(in: [name: bad])
            }
        }
        #expect(CosyVoiceError.invalidSpeechTokens(value: "ten").description
            == "CHORUS_COSYVOICE_SPEECH_TOKENS='ten' is not a token count; set it to a whole number from 1 to 100000, or unset it.")
    }
}
