import Foundation
import Testing
import ChorusKokoro
import ChorusModels
import ChorusPiper
import ChorusSpeech

/// Text of many sentences, long enough for several Kokoro pieces (300 characters each) too.
private let manySentences = (1...14).map { "Sentence number \($0) is here, and it says a few more words." }.joined(separator: " ")

/// The chunks of `text` as a whole file asks for them: a streamed request runs its pieces one after
/// another whatever the parallelism, so only the whole text's pieces run side by side.
private func chunks(of engine: any SpeechSynthesizer, _ text: String) async throws -> [AudioChunk] {
    var chunks: [AudioChunk] = []
    for try await chunk in engine.stream(SynthesisRequest(text: text, priority: .wholeText)) { chunks.append(chunk) }
    return chunks
}

private let sequential = PieceParallelism(inFlight: 1, threadsPerRun: 1)
private let sideBySide = PieceParallelism(inFlight: 3, threadsPerRun: 1)

/// Pieces run side by side give the chunks one call at a time gives, in the same order, with
/// nothing missing: on the stand-in models (whose audio is the ids they are fed, so every chunk
/// says which call made it) and, where installed, on the real ones.
@Suite struct ParallelPiecesEngineTests {
    @Test func piperStandInChunksAreThoseOfOneCallAtATime() async throws {
        let model = StandIns.piper("piper_stand_in.onnx")
        let one = try PiperSynthesizer(modelPath: model, parallelism: sequential, optimizedModels: nil)
        let three = try PiperSynthesizer(modelPath: model, parallelism: sideBySide, optimizedModels: nil)
        let expected = try await chunks(of: one, manySentences)
        let got = try await chunks(of: three, manySentences)
        #expect(expected.count == 14)
        #expect(got == expected)
        // Each chunk is its own sentence's ids, in order, with the silence after all but the last.
        let ids = try one.modelInputs(for: manySentences)
        let silence = [Float](repeating: 0, count: Int(one.sentenceSilence * Double(one.sampleRate)))
        #expect(got.map(\.samples) == ids.enumerated().map { $1.map(Float.init) + ($0 < ids.count - 1 ? silence : []) })
    }

    @Test func kokoroStandInChunksAreThoseOfOneCallAtATime() async throws {
        let files = StandIns.kokoro("kokoro_stand_in.onnx")
        let one = try KokoroSynthesizer(files: files, parallelism: sequential, optimizedModels: nil)
        let three = try KokoroSynthesizer(files: files, parallelism: sideBySide, optimizedModels: nil)
        let expected = try await chunks(of: one, manySentences)
        let got = try await chunks(of: three, manySentences)
        let ids = try one.modelInputs(for: manySentences)
        #expect(ids.count > 2)
        #expect(got == expected)
        #expect(got.map(\.samples) == ids.map { ([0] + $0 + [0]).map(Float.init) })
    }

    /// An engine loaded for one whole-text request of several pieces (`chorus speak -o`) makes no session
    /// for calls alone, since none of that request's calls runs alone, and says the same.
    @Test func anEngineServingOnlyAWholeTextOfSeveralPiecesHasNoSessionForCallsAlone() async throws {
        let whole = SynthesisRequest(text: manySentences, priority: .wholeText)
        let oneSentence = SynthesisRequest(text: "Just this.", priority: .wholeText)
        let streamed = SynthesisRequest(text: manySentences)
        for parallelism in [try PiperSynthesizer.parallelism(servingOnly: whole), try KokoroSynthesizer.parallelism(servingOnly: whole)] {
            #expect(!parallelism.callsAloneGetEveryThread && parallelism.threadsAlone(cores: 8) == parallelism.threadsPerRun)
        }
        for request in [oneSentence, streamed] {
            #expect(try PiperSynthesizer.parallelism(servingOnly: request) == PieceParallelism.current())
            #expect(try KokoroSynthesizer.parallelism(servingOnly: request) == PieceParallelism.current())
        }
        let model = StandIns.piper("piper_stand_in.onnx")
        let serving = try PiperSynthesizer(modelPath: model, parallelism: PiperSynthesizer.parallelism(servingOnly: whole),
                                           optimizedModels: nil)
        let usual = try PiperSynthesizer(modelPath: model, optimizedModels: nil)
        #expect(serving.parallelism.inFlight == usual.parallelism.inFlight)
        #expect(try await serving.synthesize(whole) == usual.synthesize(whole))
    }

    @Test func aSingleSentenceRunsAsBefore() async throws {
        let piper = try PiperSynthesizer(modelPath: StandIns.piper("piper_stand_in.onnx"), parallelism: sideBySide,
                                         optimizedModels: nil)
        let got = try await chunks(of: piper, "Just this.")
        #expect(got.count == 1)
        #expect(got[0].samples == (try piper.modelInputs(for: "Just this."))[0].map(Float.init))
        #expect(piper.piecesInFlight == 3 && piper.runLimit.maximum == 3)
    }
}

@Suite(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
struct KokoroParallelPiecesTests {
    /// Kokoro's graph draws nothing at random, so side by side is sample for sample what one call at a
    /// time gives on a session of the same threads: the first call, alone, runs on two threads, the
    /// others on one or two (thread counts change how sums are split, so the two differ in the last bits).
    @Test func realKokoroAudioIsBitExactSideBySide() async throws {
        let text = String(manySentences.prefix(700))
        let got = try await chunks(of: KokoroSynthesizer(parallelism: PieceParallelism(inFlight: 2, threadsPerRun: 1)), text)
        try await expectSameAsOneAtATime(got, text: text) { try KokoroSynthesizer(parallelism: $0) }
    }
}

/// `got`, the whole text made side by side by `2x1` (one thread per call; a whole text's first call does
/// not run alone), holds the chunks one call at a time makes: each as made with one thread, or with the
/// threads of a call alone when it borrowed that session while the shared one was being made.
private func expectSameAsOneAtATime(_ got: [AudioChunk], text: String,
                                    engine: (PieceParallelism) throws -> any SpeechSynthesizer) async throws {
    let alone = PieceParallelism(inFlight: 2, threadsPerRun: 1).threadsAlone()
    let oneThread = try await chunks(of: engine(PieceParallelism(inFlight: 1, threadsPerRun: 1)), text)
    let twoThreads = try await chunks(of: engine(PieceParallelism(inFlight: 1, threadsPerRun: alone)), text)
    #expect(oneThread.count >= 3)
    #expect(got.map(\.text) == oneThread.map(\.text))
    guard got.count == oneThread.count else { return }
    for index in got.indices {
        #expect(got[index].samples == oneThread[index].samples || got[index].samples == twoThreads[index].samples,
                "chunk \(index) is neither call's audio")
    }
    // How far apart the two thread counts are, so a change that is more than rounding shows.
    let difference = zip(oneThread[0].samples, twoThreads[0].samples).map { abs($0 - $1) }.max() ?? 0
    #expect(oneThread[0].samples.count == twoThreads[0].samples.count && difference < 1e-3)
}

@Suite(.enabled(if: InstalledModels.piper, InstalledModels.reason))
struct PiperParallelPiecesTests {
    /// The installed voice with its config's noise scales set to 0: Piper's graph draws noise at
    /// random (RandomNormalLike, unseeded) for the durations and the audio, and with both scales 0
    /// it is multiplied away, so the audio depends on the text alone.
    /// Its path changes with the process, so tests load it with no optimised-model cache (each run would
    /// leave an entry behind).
    static func noiselessVoice() throws -> URL {
        let model = PiperSynthesizer.defaultModel()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-noiseless-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent(model.lastPathComponent)
        // Suites running at once may make the link together: one that finds it made uses it.
        do {
            try FileManager.default.createSymbolicLink(at: copy, withDestinationURL: model)
        } catch CocoaError.fileWriteFileExists {}
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: model.path + ".json"))) as! [String: Any]
        var inference = config["inference"] as? [String: Any] ?? [:]
        inference["noise_scale"] = 0
        inference["noise_w"] = 0
        config["inference"] = inference
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: copy.path + ".json"), options: .atomic)
        return copy
    }

    @Test func realPiperAudioIsBitExactSideBySide() async throws {
        let voice = try Self.noiselessVoice()
        let engine = { (parallelism: PieceParallelism) in
            try PiperSynthesizer(modelPath: voice, parallelism: parallelism, optimizedModels: nil)
        }
        let text = (1...6).map { "This is sentence \($0) of six." }.joined(separator: " ")
        let got = try await chunks(of: engine(PieceParallelism(inFlight: 2, threadsPerRun: 1)), text)
        #expect(got.count == 6)
        try await expectSameAsOneAtATime(got, text: text, engine: engine)
    }

    @Test func cancellingMidwayLeavesNoCallRunning() async throws {
        let piper = try PiperSynthesizer(parallelism: PieceParallelism(inFlight: 2, threadsPerRun: 1))
        let consumer = Task {
            var count = 0
            do {
                for try await _ in piper.stream(SynthesisRequest(text: manySentences)) {
                    count += 1
                    if count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch is CancellationError {}
            return count
        }
        #expect(try await consumer.value == 2)
        // Cancelled between two calls, the stream ends without asking the engine again and the calls
        // in flight are cancelled as it goes (each stops after the operator it is in); wait for that,
        // up to 30 s, rather than for the whole text.
        for _ in 0..<3_000 where piper.runLimit.active > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(piper.runLimit.active == 0)
    }
}
