import Foundation
import Testing
import ChorusPiper
import ChorusSpeech
import ChorusStreaming

private let sentences = ["This is one.", "This is two.", "This is three.", "This is four."]

/// The samples `provider` streams for `whole`, fed to it in one piece, then ended.
private func samples(_ provider: SynthesizerProvider<PiperSynthesizer>, _ whole: String) async throws -> [Float] {
    let text = AsyncStream<String> { continuation in
        continuation.yield(whole)
        continuation.finish()
    }
    var bytes = Data()
    for try await piece in provider.stream(text: text) { bytes.append(piece) }
    return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

/// The streaming provider's join on a real engine path: Piper with pieces in flight is given the first
/// sentence alone, then the sentences in hand as one request, which its `ParallelPieces` runs side by side.
@Suite struct StreamingJoinEngineTests {
    /// On the stand-in model (audio = the ids fed) every sentence's ids come once, in order, each followed
    /// by Piper's sentence silence but the last, whether it was spoken alone or in the joined request.
    @Test func piperStandInSpeaksEverySentenceOnceInOrder() async throws {
        let piper = try PiperSynthesizer(modelPath: StandIns.piper("piper_stand_in.onnx"),
                                         parallelism: PieceParallelism(inFlight: 2, threadsPerRun: 1), optimizedModels: nil)
        let got = try await samples(SynthesizerProvider(synthesizer: piper), sentences.joined(separator: " ") + " ")
        let ids = try sentences.map { try piper.modelInputs(for: $0)[0].map(Float.init) }
        let silence = [Float](repeating: 0, count: Int(piper.sentenceSilence * Double(piper.sampleRate)))
        // Requests: "This is one." alone, then the other three together (all in hand once the first is spoken).
        #expect(got == ids[0] + silence + ids[1] + silence + ids[2] + silence + ids[3])
    }
}

@Suite(.enabled(if: InstalledModels.piper, InstalledModels.reason))
struct RealPiperStreamingJoinTests {
    /// Noiseless real Piper: the joined request, run two calls at once, gives each sentence the samples
    /// that sentence gets spoken on its own, one call at a time.
    @Test func joinedSentencesSoundAsEachAlone() async throws {
        let voice = try PiperParallelPiecesTests.noiselessVoice()
        let two = try PiperSynthesizer(modelPath: voice, parallelism: PieceParallelism(inFlight: 2, threadsPerRun: 1),
                                       optimizedModels: nil)
        let one = try PiperSynthesizer(modelPath: voice, parallelism: PieceParallelism(inFlight: 1, threadsPerRun: 1),
                                       optimizedModels: nil)
        let got = try await samples(SynthesizerProvider(synthesizer: two), sentences.joined(separator: " ") + " ")
        var alone: [[Float]] = []
        for sentence in sentences { alone.append(try await one.synthesize(SynthesisRequest(text: sentence))) }
        let silence = [Float](repeating: 0, count: Int(one.sentenceSilence * Double(one.sampleRate)))
        #expect(alone.allSatisfy { !$0.isEmpty })
        #expect(got == alone[0] + silence + alone[1] + silence + alone[2] + silence + alone[3])
    }
}
