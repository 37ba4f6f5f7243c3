import ChorusGeneration
import Foundation
import Testing
@testable import ChorusChatterbox

@Suite struct DecoderTests {
    /// upstream's S3Gen inference (id filter, 3 x 4299, flow with 2 meanflow steps, HiFT, trim fade) on the
    /// PyTorch weights with the noise pinned; Chorus on the ONNX export: the same audio within 1e-4.
    @Test(arguments: ["hello", "tags", "capped"]) func audioEqualsUpstream(name: String) throws {
        let golden = try TestResources.decoded("\(name).json", as: TestResources.Case.self)
        let decoder = try ConditionalDecoder(session: TestResources.session("conditional_decoder.onnx"))
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let audio = try decoder.decode(golden.tokens, voice: voice)
        let expected = try TestResources.floats("\(name).f32")
        let kept = ConditionalDecoder.speechTokens(from: golden.tokens).count
        #expect(audio.count == kept * ConditionalDecoder.samplesPerToken)
        #expect(audio.count == expected.count)
        let difference = TestResources.maximumDifference(audio, expected)
        print("Chatterbox \(name): \(audio.count) samples, max |difference| from upstream \(difference)")
        #expect(difference < 1e-4)
    }

    /// The chunked golden, chunk by chunk: upstream's tokens in every `GoldenRun`, each draw keeping
    /// `TestResources.leastMargin` on Chorus's logits, and the chunks' audio joined within 1e-4 of upstream's.
    @Test(arguments: GoldenRun.allCases) func chunkedAudioEqualsUpstream(run: GoldenRun) throws {
        let golden = try TestResources.decoded("chunked.json", as: TestResources.Chunked.self)
        let encoder = try ChatterboxTextEncoder(folder: TestResources.model)
        let model = try TestResources.languageModel(maximumNewTokens: golden.maxGenLen ?? LanguageModel.maximumNewTokens,
                                                    threads: run.threads)
        let decoder = try ConditionalDecoder(session: TestResources.session("conditional_decoder.onnx"))
        let voice = try VoiceConditioning(folder: TestResources.voice)
        let chunks = ChatterboxTextEncoder.chunks(of: golden.text, maxCharacters: 50)
        #expect(chunks == golden.chunks.map(\.text))
        var audio: [Float] = []
        for (chunk, expected) in zip(chunks, golden.chunks) {
            let recorded = try #require(expected.margins, "the golden records no margins; run make_testdata.py")
            let (tokens, margins) = try run.measured {
                try model.generate(.init(voice: voice, ids: encoder.ids(for: chunk), seed: golden.seed)) { _ in }
            }
            #expect(tokens == expected.tokens, "\(run)")
            try run.requireMargins(margins, atLeast: TestResources.leastMargin)
            #expect(margins.count == recorded.count)
            print("Chatterbox chunk (\(run)): \(tokens.count) tokens, least margin on Chorus's logits "
                  + "\(margins.map(\.least).min() ?? .infinity), recorded \(recorded.min() ?? 0)")
            audio += try decoder.decode(tokens, voice: voice)
        }
        let expected = try TestResources.floats("chunked.f32")
        #expect(audio.count == expected.count)
        let difference = TestResources.maximumDifference(audio, expected)
        print("Chatterbox chunked: \(chunks.count) chunks, \(audio.count) samples, max |difference| \(difference)")
        #expect(difference < 1e-4)
    }

    @Test func trimFadeIsUpstreams() {
        let fade = ConditionalDecoder.trimFade
        #expect(fade.count == 960)
        #expect(fade[0..<480].allSatisfy { $0 == 0 })
        #expect(fade[480] == 0 && abs(fade[959] - 1) < 1e-7)
        #expect(zip(fade[480..<959], fade[481...]).allSatisfy { $0 <= $1 })
        // Halfway through the fade the raised cosine is at one half.
        #expect(abs(fade[480 + 240] - 0.5) < 0.01)
        var audio = [Float](repeating: 1, count: 1000)
        ConditionalDecoder.applyTrimFade(&audio)
        #expect(audio[0..<960].elementsEqual(fade) && audio[960...].allSatisfy { $0 == 1 })
    }
}
