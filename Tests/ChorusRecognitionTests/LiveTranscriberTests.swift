import ChorusAudio
import Foundation
import Testing
import ChorusVAD
@testable import ChorusRecognition

/// A stand-in recogniser for "block speech": word n is 0.3 s of the constant n / 64, words are
/// 0.1 s apart. It hears a word when at least 0.2 s of it is in the chunk, as a real recogniser
/// hears most of a cut word; so chunk edges do produce extra or missing words, which merging must fix.
struct BlockWordRecognizer: ChunkTranscribing {
    let sampleRate = 16000
    var maximumChunkSamples: Int? = 8 * 16000

    static let wordSamples = 4800
    static let gapSamples = 1600

    static func speak(_ words: ClosedRange<Int>) -> [Float] {
        words.flatMap { word in
            [Float](repeating: Float(word) / 64, count: wordSamples) + [Float](repeating: 0, count: gapSamples)
        }
    }

    static func text(_ words: ClosedRange<Int>) -> String { words.map { "w\($0)" }.joined(separator: " ") }

    func transcribe(chunk samples: [Float]) async throws -> String {
        if let maximum = maximumChunkSamples { precondition(samples.count <= maximum, "chunk of \(samples.count)") }
        var words: [String] = []
        var run = (word: 0, length: 0)
        // Resampling rings at block edges; a word is its value rounded, held for 0.2 s.
        for sample in samples + [0] {
            let word = Int((sample * 64).rounded())
            if word == run.word {
                run.length += 1
                continue
            }
            if run.word > 0, run.length >= 3200 { words.append("w\(run.word)") }
            run = (word, 1)
        }
        return words.joined(separator: " ")
    }
}

@Suite struct LiveTranscriberTests {
    /// Pushes `audio` in pieces of `piece` samples and collects every update.
    func stream(_ audio: [Float], rate: Int, piece: Int, into transcriber: LiveTranscriber) async throws
        -> [LiveTranscriber.Update]
    {
        var updates: [LiveTranscriber.Update] = []
        for start in stride(from: 0, to: audio.count, by: piece) {
            updates += try await transcriber.push(Array(audio[start..<min(start + piece, audio.count)]))
        }
        return updates + (try await transcriber.finish())
    }

    @Test func overlappingChunksMergeIntoTheOfflineTranscript() async throws {
        let recognizer = BlockWordRecognizer()
        let audio = BlockWordRecognizer.speak(1...60)  // 24 s: three chunks of 8 s and more
        let offline = try await recognizer.transcribe(audio)
        #expect(offline == BlockWordRecognizer.text(1...60))
        let live = try LiveTranscriber(recognizer: recognizer, inputRate: 16000)
        let updates = try await stream(audio, rate: 16000, piece: 1234, into: live)
        #expect(updates.last == .final(offline))
        let partials = updates.dropLast().compactMap { if case .partial(let text) = $0 { text } else { nil } }
        #expect(partials.count >= 20)
        // Partials cover the utterance from its start, not only the latest chunk.
        #expect(partials[5].hasPrefix("w1 w2"))
    }

    @Test func aLongStreamKeepsOnlyAboutTwoChunksOfAudio() async throws {
        let live = try LiveTranscriber(recognizer: BlockWordRecognizer(), inputRate: 16000)
        let audio = BlockWordRecognizer.speak(1...60)
        var most = 0
        for start in stride(from: 0, to: audio.count, by: 8000) {
            _ = try await live.push(Array(audio[start..<min(start + 8000, audio.count)]))
            most = max(most, await live.bufferedSamples)
        }
        #expect(most <= 2 * 8 * 16000 + 8000)
        #expect(try await live.finish().last == .final(BlockWordRecognizer.text(1...60)))
    }

    @Test func otherRatesAreResampledFirst() async throws {
        let audio16k = BlockWordRecognizer.speak(1...10)
        let audio32k = audio16k.flatMap { [$0, $0] }
        let live = try LiveTranscriber(recognizer: BlockWordRecognizer(), inputRate: 32000)
        let updates = try await stream(audio32k, rate: 32000, piece: 4000, into: live)
        #expect(updates.last == .final(BlockWordRecognizer.text(1...10)))
    }

    @Test func chunksNeverExceedTheRecogniserLimit() async throws {
        var recognizer = BlockWordRecognizer()
        recognizer.maximumChunkSamples = 3 * 16000
        let live = try LiveTranscriber(recognizer: recognizer, inputRate: 16000,
                                       settings: .init(chunkSeconds: 8, overlapSeconds: 1))
        let updates = try await stream(BlockWordRecognizer.speak(1...30), rate: 16000, piece: 16000, into: live)
        #expect(updates.last == .final(BlockWordRecognizer.text(1...30)))
    }

    @Test func longAudioIsCutIntoOverlappingChunksAndMerged() async throws {
        let recognizer = BlockWordRecognizer()
        let text = try await recognizer.transcribe(BlockWordRecognizer.speak(1...63), overlapSeconds: 1.5)
        #expect(text == BlockWordRecognizer.text(1...63))
    }
}

/// Hears "speech" in any chunk with a sample louder than -26 dBFS: enough to see where utterances end.
struct LoudnessRecognizer: ChunkTranscribing {
    let sampleRate = 16000
    let maximumChunkSamples: Int? = nil
    func transcribe(chunk samples: [Float]) async throws -> String {
        samples.contains { abs($0) > 0.05 } ? "speech" : ""
    }
}

@Suite struct LiveFinalisationTests {
    @Test(.enabled(if: SileroModel.installed))
    func eachPauseFinalisesOneUtterance() async throws {
        // The VAD tests' clip: three sentences between silences of 0.45 s and more.
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ChorusVADTests/Resources/speech_pauses_16k.wav")
        let audio = try WAVFile.readMono(contentsOf: clip).samples
        let vad = try StreamingVAD(vad: SileroVAD())
        let live = try LiveTranscriber(recognizer: LoudnessRecognizer(), inputRate: 16000, vad: vad)
        var updates: [LiveTranscriber.Update] = []
        for start in stride(from: 0, to: audio.count, by: 3000) {
            updates += try await live.push(Array(audio[start..<min(start + 3000, audio.count)]))
        }
        let beforeFinish = updates.filter { if case .final = $0 { true } else { false } }
        updates += try await live.finish()
        #expect(beforeFinish == [.final("speech"), .final("speech"), .final("speech")])
        #expect(updates.filter { if case .final = $0 { true } else { false } }.count == 3)
    }
}

enum SileroModel {
    static let installed: Bool = {
        let installed = FileManager.default.fileExists(atPath: SileroVAD.defaultModelPath)
        if !installed { print("Live VAD tests skipped: no model at \(SileroVAD.defaultModelPath); run scripts/setup.sh") }
        return installed
    }()
}

@Suite struct ChunkPlannerTests {
    let planner = ChunkPlanner(maximumSamples: 100, overlapSamples: 10)

    @Test func shortAudioIsOneChunk() {
        #expect(planner.chunks(sampleCount: 100) == [.init(samples: 0..<100, overlapsPrevious: false)])
    }

    @Test func withoutPausesChunksOverlap() {
        #expect(planner.chunks(sampleCount: 250) == [
            .init(samples: 0..<100, overlapsPrevious: false),
            .init(samples: 90..<190, overlapsPrevious: true),
            .init(samples: 180..<250, overlapsPrevious: true),
        ])
    }

    @Test func pausesInTheSecondHalfAreCutPoints() {
        let speech = [SpeechSegment(start: 0, end: 60, sampleRate: 16000),
                      SpeechSegment(start: 80, end: 150, sampleRate: 16000),
                      SpeechSegment(start: 160, end: 250, sampleRate: 16000)]
        // Pauses at 70 and 155: cut at 70 (not after 100), then at 155 (within 70 + 100).
        #expect(planner.chunks(sampleCount: 250, speech: speech) == [
            .init(samples: 0..<70, overlapsPrevious: false),
            .init(samples: 70..<155, overlapsPrevious: false),
            .init(samples: 155..<250, overlapsPrevious: false),
        ])
        // A pause in the first half of the allowed length is too early to be worth a call.
        let early = [SpeechSegment(start: 0, end: 20, sampleRate: 16000), SpeechSegment(start: 30, end: 250, sampleRate: 16000)]
        #expect(planner.chunks(sampleCount: 250, speech: early).first == .init(samples: 0..<100, overlapsPrevious: false))
    }
}
