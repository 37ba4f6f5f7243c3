import ChorusSpeech
import Foundation
import Testing
@testable import ChorusNeuTTS

/// A text longer than one prompt fits is spoken whole, in pieces that each fit the backbone's context, where
/// upstream's `infer` stops at the context and drops the rest.
@Suite struct NeuTTSLongTextTests {
    static let sentence = "The quick brown fox jumps over the lazy dog by the river. "

    @Test func aLongTextIsSpokenWholeInPiecesThatFitTheContext() async throws {
        let url = try NeuTTSEngineTests.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let synthesizer = try NeuTTSSynthesizer(folder: url, configuration: .init(streams: false))
        let voice = try synthesizer.neuTTSVoice(.installed("ref"))
        let long = String(repeating: Self.sentence, count: 52)  // 3,016 characters
        #expect(long.count > 3_000)
        let pieces = try synthesizer.pieces(of: long, voice: voice)
        #expect(pieces.count > 1)
        #expect(pieces.joined().filter { !$0.isWhitespace } == long.filter { !$0.isWhitespace })
        // Each piece's prompt leaves room for its speech at the voice's own pace, with the margin.
        let reference = try synthesizer.phonemizer.phonemes(for: voice.transcript)
        let codesPerPhoneme = Double(voice.codes.count) / Double(reference.count)
        for piece in pieces {
            let prompt = try synthesizer.promptIDs(text: piece, voice: voice).count
            let speech = Double(try synthesizer.phonemizer.phonemes(for: piece).count) * codesPerPhoneme * NeuTTSSynthesizer.speechMargin
            #expect(Double(prompt) + speech <= Double(Backbone.context), "\(piece.prefix(40))...: \(prompt) + \(speech)")
        }

        var spokenPieces: [String] = []
        var whole = 0
        for try await chunk in synthesizer.stream(SynthesisRequest(text: long, voiceID: "ref")) {
            spokenPieces.append(chunk.text ?? "")
            whole += chunk.samples.count
        }
        #expect(spokenPieces == pieces)
        let short = try await synthesizer.synthesize(SynthesisRequest(text: pieces[0], voiceID: "ref"))
        #expect(whole > short.count)
    }
}
