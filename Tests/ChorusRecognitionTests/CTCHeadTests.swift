import ChorusAudio
import ChorusDSP
import Foundation
import ChorusONNX
import Testing
@testable import ChorusRecognition

@Suite struct CTCHeadTests {
    let encoder = CTCHead.find(stem: "encoder", in: ToneSentence.modelFolder)!
    let pronunciation = CTCHead.find(stem: "pronunciation", in: ToneSentence.modelFolder)!

    @Test func findsTheBucketsAndTheDynamicHead() {
        #expect(encoder.buckets == LengthBuckets.fastConformer)
        #expect(pronunciation.buckets == nil)
        #expect(pronunciation.maximumFrames == nil)
        #expect(CTCHead.find(stem: "decoder", in: ToneSentence.modelFolder) == nil)
    }

    @Test func bucketedOutputEqualsThePythonReferenceFrameByFrame() async throws {
        let golden = try ToneSentence.golden()
        let features = try ToneSentence.features()
        #expect(features.frames == golden.frames)
        let output = try await encoder.logProbabilities(for: features)
        #expect(output.frames == (golden.frames + 7) / 8)
        #expect(output.classes == 1001)
        #expect(output.bestClasses() == golden.frame_tokens)
    }

    @Test func dynamicHeadEqualsThePythonReference() async throws {
        let golden = try ToneSentence.golden()
        let output = try await pronunciation.logProbabilities(for: ToneSentence.features())
        #expect(output.classes == 12)
        #expect(output.bestClasses() == golden.pronunciation_frame_symbols)
    }

    /// Padding must not change what the valid frames say: any bucket that holds the input agrees.
    @Test func everyBucketThatHoldsTheInputGivesTheSameFrames() async throws {
        let features = try ToneSentence.features().frames(0..<190)
        let smallest = try await encoder.logProbabilities(for: features)
        #expect(smallest.frames == 24)
        guard case .buckets(let files) = encoder.layout else { Issue.record("not bucketed"); return }
        for bucket in [400, 4800] {
            let only = CTCHead(layout: .buckets([bucket: files[bucket]!]))
            let output = try await only.logProbabilities(for: features)
            #expect(output.bestClasses() == smallest.bestClasses(), "bucket \(bucket)")
        }
    }

    @Test func inputLongerThanTheLargestBucketIsRefused() async throws {
        let long = try ToneSentence.features().padded(to: 4801)
        await #expect(throws: RecognitionError.inputTooLong(frames: 4801, largestBucket: 4800)) {
            try await encoder.logProbabilities(for: long)
        }
    }

    @Test func aMislabelledBucketIsNamed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-ctchead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wrong = folder.appendingPathComponent("encoder_T200.onnx")
        try FileManager.default.copyItem(at: ToneSentence.modelFolder.appendingPathComponent("encoder_T80.onnx"), to: wrong)
        let head = CTCHead.find(stem: "encoder", in: folder)!
        await #expect(throws: RecognitionError.bucketMismatch(path: wrong.path, named: 200, declared: "80")) {
            try await head.logProbabilities(for: ToneSentence.features().frames(0..<150))
        }
    }

    @Test func paddingAndCuttingFeatures() {
        let features = AcousticFeatures(channels: 2, frames: 3, values: [1, 2, 3, 4, 5, 6])
        #expect(features.padded(to: 5).values == [1, 2, 3, 0, 0, 4, 5, 6, 0, 0])
        #expect(features.padded(to: 2).values == [1, 2, 4, 5])
        #expect(features.frames(1..<3).values == [2, 3, 5, 6])
    }
}

@Suite struct FeatureFrontEndTests {
    /// DSP's NeMo features against onnx-asr's nemo80.onnx, both on the clip; then the head on them.
    @Test func swiftFeaturesGiveThePythonFrames() async throws {
        let golden = try ToneSentence.golden()
        let audio = try WAVFile.readMono(contentsOf: ToneSentence.resources.appendingPathComponent("tone_sentence.wav"))
        let features = AcousticFeatures(NeMoFilterbank(), samples: audio.samples)
        let python = try ToneSentence.features()
        #expect(features.frames == python.frames)
        let worst = zip(features.values, python.values).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 2e-3, "largest feature difference from nemo80.onnx: \(worst)")
        let head = CTCHead.find(stem: "encoder", in: ToneSentence.modelFolder)!
        #expect(try await head.logProbabilities(for: features).bestClasses() == golden.frame_tokens)
    }
}
