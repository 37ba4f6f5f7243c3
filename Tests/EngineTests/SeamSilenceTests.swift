import Foundation
@testable import ChorusKokoro
@testable import ChorusPieceModel
import ChorusSpeech
import Testing

/// Where a sentence is cut into two pieces, the model's quiet at the cut is trimmed, so the listener
/// hears no pause for breath in mid-sentence.
@Suite struct SeamSilenceTests {
    @Test func quietAtACutEndIsTrimmedToWhatIsAskedAndTheRestKept() {
        let samples = [Float](repeating: 0, count: 1_000) + [Float](repeating: 0.5, count: 500) + [Float](repeating: 0.001, count: 2_000)
        let both = PieceModel.trimmingSilence(of: samples, leading: 100, trailing: 200)
        #expect(both.count == 100 + 500 + 200)
        #expect(both.first == 0 && both[100] == 0.5 && both[599] == 0.5 && both.last == 0)
        #expect(PieceModel.trimmingSilence(of: samples, leading: nil, trailing: 200).count == 1_000 + 500 + 200)
        #expect(PieceModel.trimmingSilence(of: samples, leading: 100, trailing: nil).count == 100 + 500 + 2_000)
        #expect(PieceModel.trimmingSilence(of: samples, leading: nil, trailing: nil) == samples)
        // All quiet: nothing to go by, kept as it is.
        #expect(PieceModel.trimmingSilence(of: [Float](repeating: 0.001, count: 300), leading: 10, trailing: 10).count == 300)
    }

    /// The 3-sentence text streamed in short pieces lasts not much longer than the same text made whole:
    /// before the quiet at the cuts inside its sentences was trimmed it lasted 41% longer (12.2 s against
    /// 8.7 s, bench/stream_first_byte.py); what is left (18% here) is Kokoro's own pause between sentences
    /// made in calls of their own, as before the first piece was cut.
    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokorosStreamedSpeechIsNoLongerThanItsWholeText() async throws {
        let kokoro = try KokoroSynthesizer()
        let text = "The lamp turned slowly over the water. Sailors could see it from far away. The keeper kept it burning every night."
        var streamed = 0
        var pieces = 0
        for try await chunk in kokoro.stream(SynthesisRequest(text: text)) {
            streamed += chunk.samples.count
            pieces += 1
        }
        var whole = 0
        for try await chunk in kokoro.stream(SynthesisRequest(text: text, priority: .wholeText)) { whole += chunk.samples.count }
        #expect(pieces >= 4)
        #expect(Double(streamed) <= 1.25 * Double(whole), "streamed \(streamed) samples, whole \(whole)")
    }

    /// At a cut inside a sentence Kokoro's pad tokens are capped at `padFramesAtCuts` frames, so the call makes
    /// less of the quiet that `seams` would throw away: whole frames (600 samples at 24 kHz) fewer, from the start
    /// pad, the end pad, or both, each independent of the other, and nothing at all without a cut.
    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokoroMakesLessQuietWhereAPieceWasCut() async throws {
        let kokoro = try KokoroSynthesizer()
        let ids = try #require(try kokoro.modelInputs(for: "The lamp turned").first)
        func samples(_ atStart: Bool, _ atEnd: Bool) async throws -> Int {
            try await kokoro.speak(ids: ids, voice: "jf_alpha", speed: 1, alone: true,
                                   cuts: PieceModel.Cuts(atStart: atStart, atEnd: atEnd)).count
        }
        let whole = try await samples(false, false)
        let start = whole - (try await samples(true, false))
        let end = whole - (try await samples(false, true))
        let both = whole - (try await samples(true, true))
        #expect(start > 0 && end > 0 && both == start + end, "fewer samples: start \(start), end \(end), both \(both)")
        #expect(start % 600 == 0 && end % 600 == 0)
        #expect(try await samples(false, false) == whole)
    }
}
