import ChorusSpeech
import Foundation
import Testing

@Suite struct VoiceTests {
    @Test func codingRoundTripsWithStableKeys() throws {
        let voice = Voice(id: "jf_alpha", engine: "kokoro", language: "ja", gender: .female, summary: "Japanese")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(voice), as: UTF8.self)
        #expect(json == #"{"engine":"kokoro","gender":"female","id":"jf_alpha","language":"ja","summary":"Japanese"}"#)
        #expect(try JSONDecoder().decode(Voice.self, from: Data(json.utf8)) == voice)
    }

    @Test func genderDecodesFromItsNameAndRefusesOthers() throws {
        let json = #"{"engine":"piper","gender":"unknown","id":"joe","language":"en-US","summary":""}"#
        #expect(try JSONDecoder().decode(Voice.self, from: Data(json.utf8)).gender == .unknown)
        let bad = json.replacingOccurrences(of: "unknown", with: "robot")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Voice.self, from: Data(bad.utf8)) }
    }

    @Test func descriptionNamesEngineIdLanguageAndGender() {
        #expect(Voice(id: "joe", engine: "piper", language: "en-US", gender: .unknown).description
            == "piper/joe (en-US, unknown)")
    }
}
