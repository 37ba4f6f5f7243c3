import ChorusAudio
import ChorusModels
import Foundation
import Testing
import ChorusVAD
@testable import ChorusRecognition

/// Token ids as text, for comparing ids where no SentencePiece decoding is needed.
struct PieceIDs: TokenDecoding {
    let vocabularySize = 1000
    func decode(_ ids: [Int]) -> String { ids.map(String.init).joined(separator: " ") }
}

@Suite struct FastConformerRecognizerTests {
    static func clip() throws -> [Float] {
        try WAVFile.readMono(contentsOf: ToneSentence.resources.appendingPathComponent("tone_sentence.wav")).samples
    }

    @Test func audioToTokensEqualsThePythonReference() async throws {
        let golden = try ToneSentence.golden()
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder, tokenizer: PieceIDs())
        let result = try await recognizer.recognize(try Self.clip())
        #expect(result.tokens == golden.token_ids)
        #expect(result.pronunciation == golden.pronunciation)
    }

    @Test func audioToTextEqualsThePythonReference() async throws {
        let golden = try ToneSentence.golden()
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        #expect(recognizer.tokenizer is SentencePieceVocabulary)
        let result = try await recognizer.recognize(try Self.clip())
        #expect(result.text == golden.text)
        #expect(result.text == golden.spoken)
        #expect(result.tokens == golden.token_ids)
    }

    @Test func tokensTxtReadsAsTheSentencePieceModel() throws {
        let golden = try ToneSentence.golden()
        let pieces = try PieceVocabulary(contentsOf: ToneSentence.modelFolder.appendingPathComponent("tokens.txt"))
        let model = try SentencePieceVocabulary(contentsOf: ToneSentence.modelFolder.appendingPathComponent("tokenizer.model"))
        #expect(pieces.vocabularySize == 1000)
        #expect(model.vocabularySize == 1000)
        #expect(pieces.decode([16, 52, 22, 15, 0, 1]) == "I was toed")
        #expect(try model.decode(golden.story_ids) == golden.story_text)
        #expect(pieces.decode(golden.story_ids) == golden.story_text)
    }

    @Test func aFolderWithOnlyTokensTxtWorksToo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["encoder_T800.onnx", "tokens.txt"] {
            try FileManager.default.copyItem(at: ToneSentence.modelFolder.appendingPathComponent(name),
                                             to: folder.appendingPathComponent(name))
        }
        let recognizer = try FastConformerRecognizer(folder: folder)
        #expect(recognizer.tokenizer is PieceVocabulary)
        #expect(recognizer.pronunciation == nil)
        #expect(try await recognizer.recognize(try Self.clip()).text == (try ToneSentence.golden()).text)
    }

    /// NeMo's own export: one model for any length, with a `length` input and an extra output.
    @Test func aDynamicExportWithALengthInputGivesTheSameText() async throws {
        let folder = ToneSentence.resources.appendingPathComponent("fastconformer_dynamic")
        let recognizer = try FastConformerRecognizer(folder: folder)
        #expect(recognizer.encoder.buckets == nil)
        #expect(try await recognizer.recognize(try Self.clip()).text == (try ToneSentence.golden()).text)
        let story = speakStory(try ToneSentence.golden())
        #expect(try await recognizer.transcribe(story + story) == [String](repeating: (try ToneSentence.golden()).story_text, count: 2).joined(separator: " "))
    }

    /// A free-length encoder is still given at most 48 s a call (its attention grows with the square of
    /// the length: a real-size model on an hour in one call would not fit in memory), and longer audio
    /// is cut and merged as with buckets.
    @Test func aDynamicExportIsGivenAtMost48SecondsACall() async throws {
        let folder = ToneSentence.resources.appendingPathComponent("fastconformer_dynamic")
        let recognizer = try FastConformerRecognizer(folder: folder)
        let limit = try #require(recognizer.maximumChunkSamples)
        #expect(limit == 4801 * 160 - 1)
        let golden = try ToneSentence.golden()
        let story = speakStory(golden)
        let audio = story + story + story + story  // 59 s
        #expect(audio.count > limit)
        let whole = try await recognizer.recognize(audio)
        #expect(whole.text == [String](repeating: golden.story_text, count: 4).joined(separator: " "))
        #expect(whole.tokens == [[Int]](repeating: golden.story_ids, count: 4).flatMap { $0 })
    }

    @Test func theLimitIsTheLargestBucket() throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder, tokenizer: PieceIDs())
        #expect(recognizer.maximumChunkSamples == 4801 * 160 - 1)
    }

    @Test func silenceAndEmptyAudioSayNothing() async throws {
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder, tokenizer: PieceIDs())
        #expect(try await recognizer.recognize([]).text == "")
        #expect(try await recognizer.recognize([Float](repeating: 0, count: 16000)).tokens == [])
    }

    @Test func aFolderWithoutAnEncoderNamesTheFile() throws {
        let folder = FileManager.default.temporaryDirectory
        let encoder = folder.appendingPathComponent("encoder.onnx (or encoder_T<frames>.onnx per bucket)")
        #expect(throws: FastConformerRecognizer.manifest.missing(encoder.path)) {
            try FastConformerRecognizer(folder: folder, tokenizer: PieceIDs())
        }
    }

    @Test func aVocabularyOfTheWrongSizeIsRefused() async throws {
        struct Small: TokenDecoding {
            let vocabularySize = 10
            func decode(_ ids: [Int]) -> String { "" }
        }
        let recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder, tokenizer: Small())
        await #expect(throws: RecognitionError.self) { try await recognizer.recognize(try Self.clip()) }
    }
}

/// The golden file's story spoken as tones, as the generator would: each piece a tone, pieces of a
/// word and words apart by short silences.
func speakStory(_ golden: ToneSentence.Golden) -> [Float] {
    let timing = golden.timing
    func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 16000)) }
    func tone(_ hertz: Double) -> [Float] {
        let count = Int((timing["piece"]! * 16000).rounded())
        return (0..<count).map { index in
            let time = Double(index) / 16000
            let ramp = min(1, min(time, Double(count - 1 - index) / 16000) / timing["ramp"]!)
            return Float(timing["amplitude"]! * sin(2 * .pi * hertz * time) * ramp)
        }
    }
    var audio = silence(timing["edge"]!)
    for (position, word) in golden.story.enumerated() {
        if position > 0 { audio += silence(timing["gap"]!) }
        for (index, piece) in word.split(separator: " ").enumerated() {
            if index > 0 { audio += silence(timing["inner_gap"]!) }
            audio += tone(golden.tones[String(piece)]!)
        }
    }
    return audio + silence(timing["edge"]!)
}

@Suite struct FastConformerChunkingTests {
    let recognizer: FastConformerRecognizer
    let story: [Float]
    let storyText: String
    let storyIDs: [Int]

    init() throws {
        recognizer = try FastConformerRecognizer(folder: ToneSentence.modelFolder)
        let golden = try ToneSentence.golden()
        story = speakStory(golden)
        storyText = golden.story_text
        storyIDs = golden.story_ids
    }

    @Test func theStoryIsHeardWhole() async throws {
        #expect(try await recognizer.recognize(story).text == storyText)
    }

    @Test(arguments: [4000, 16000])
    func liveMergedTranscriptEqualsTheOfflineOne(piece: Int) async throws {
        let offline = try await recognizer.recognize(story)
        #expect(offline.tokens == (try ToneSentence.golden()).story_ids)
        let live = try LiveTranscriber(recognizer: recognizer, inputRate: 16000)
        var updates: [LiveTranscriber.Update] = []
        for start in stride(from: 0, to: story.count, by: piece) {
            updates += try await live.push(Array(story[start..<min(start + piece, story.count)]))
        }
        updates += try await live.finish()
        // Text and token ids: the 15 s story is two 8 s chunks merged on their overlap.
        #expect(updates.last == .final(offline.text, tokens: offline.tokens))
    }

    /// With speech segments (as Silero finds them) the cuts go into pauses and nothing needs merging.
    @Test func longAudioIsCutAtPausesWhenThereAreSegments() async throws {
        let audio = story + story + story + story
        let sentence = story.count
        // One segment per story copy, 0.2 s in from each end: pauses sit at the copies' seams.
        let speech = (0..<4).map {
            SpeechSegment(start: $0 * sentence + 3200, end: ($0 + 1) * sentence - 3200, sampleRate: 16000)
        }
        let planner = ChunkPlanner(maximumSamples: recognizer.maximumChunkSamples!, overlapSamples: 32000)
        let chunks = planner.chunks(sampleCount: audio.count, speech: speech)
        #expect(chunks.map(\.overlapsPrevious) == [false, false])
        #expect(chunks.first?.samples.upperBound == 3 * sentence)
        let text = try await recognizer.transcribe(audio, speech: speech)
        #expect(text == [String](repeating: storyText, count: 4).joined(separator: " "))
        let result = try await recognizer.recognize(audio, speech: speech)
        #expect(result.text == text)
        #expect(result.tokens == [[Int]](repeating: storyIDs, count: 4).flatMap { $0 })
    }

    @Test func audioLongerThanTheLargestBucketIsChunkedAndMerged() async throws {
        let audio = story + story + story + story  // 59 s > 48 s
        #expect(audio.count > recognizer.maximumChunkSamples!)
        let text = try await recognizer.transcribe(audio)
        #expect(text == [String](repeating: storyText, count: 4).joined(separator: " "))
        // Both heads, merged alike.
        let once = try await recognizer.recognize(story)
        let whole = try await recognizer.recognize(audio)
        #expect(whole.text == text)
        #expect(whole.tokens == [[Int]](repeating: storyIDs, count: 4).flatMap { $0 })
        #expect(whole.pronunciation == [String](repeating: once.pronunciation!, count: 4).joined(separator: " "))
    }
}
