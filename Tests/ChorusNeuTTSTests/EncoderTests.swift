import ChorusAudio
import ChorusDSP
import ChorusONNX
import Foundation
import Testing
@testable import ChorusNeuTTS

/// The NeuCodec encoder stage against upstream's `encode_reference` and feature extractor on the small codec of
/// scripts/testdata/neutts/make_encoder_testdata.py.
@Suite struct NeuTTSEncoderTests {
    struct Golden: Decodable {
        var codes16k: [Int]
        var codes44k: [Int]
        var samples16k: Int
        var featuresShape: [Int]
        var fsqMargin: Double

        enum CodingKeys: String, CodingKey {
            case codes16k = "codes_16k", codes44k = "codes_44k", samples16k = "samples_16k"
            case featuresShape = "features_shape", fsqMargin = "fsq_margin"
        }
    }

    static func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(contentsOf: TestResources.golden.appendingPathComponent("encoder.json")))
    }

    static func encoder() throws -> CodecEncoder { try CodecEncoder(session: TestResources.session(NeuTTSModelFolder.encoder)) }

    static func clip(_ name: String) throws -> (samples: [Float], sampleRate: Int) {
        try CodecEncoder.clip(contentsOf: TestResources.golden.appendingPathComponent(name))
    }

    @Test func paddingIsUpstreamsAndGivesOneCodePer320Samples() {
        for (count, padded) in [(1, 320), (319, 320), (320, 640), (16_000, 16_320), (41_760, 41_920)] {
            let samples = [Float](repeating: 0.5, count: count)
            let out = CodecEncoder.padded(samples)
            #expect(out.count == padded, "\(count)")
            #expect(out.prefix(count).allSatisfy { $0 == 0.5 } && out.dropFirst(count).allSatisfy { $0 == 0 })
            // encode_code's semantic side has N / 320 - 1 frames, one fewer than the acoustic side: n / 320 codes.
            #expect(SeamlessM4TFeatures().frameCount(for: out.count) == count / 320, "\(count)")
        }
    }

    @Test func featuresMatchUpstreamsExtractor() throws {
        let golden = try Self.golden()
        let clip = try Self.clip("encoder-16k.wav")
        #expect(clip.sampleRate == 16_000 && clip.samples.count == golden.samples16k)
        let features = SeamlessM4TFeatures()(CodecEncoder.padded(clip.samples))
        #expect([features.rows, features.columns] == golden.featuresShape)
        let expected = try TestResources.floats("encoder-features.f32")
        let error = TestResources.maximumDifference(features.values, expected)
        print("SeamlessM4T features: max |error| \(error) over \(expected.count) values")
        #expect(features.values.count == expected.count && error < 1e-3)
    }

    @Test func codesEqualUpstreamsOnTheGoldenClip() throws {
        let golden = try Self.golden()
        let clip = try Self.clip("encoder-16k.wav")
        let codes = try Self.encoder().encode(clip.samples, sampleRate: clip.sampleRate)
        print("encoder: \(codes.count) codes, \(Set(codes).count) distinct, FSQ margin \(golden.fsqMargin)")
        #expect(codes == golden.codes16k)
        #expect(codes.count == clip.samples.count / 320)
    }

    @Test func aClipAtAnotherRateAndInStereoIsMixedAndResampled() throws {
        let golden = try Self.golden()
        let clip = try Self.clip("encoder-44k.wav")
        #expect(clip.sampleRate == 44_100)
        // upstream reads it with librosa.load(sr=16000, mono=True): channels averaged, soxr's HQ resampler.
        let resampled = try Resampler.resample(clip.samples, from: clip.sampleRate, to: CodecEncoder.sampleRate)
        let upstream = try TestResources.floats("encoder-44k-at-16k.f32")
        #expect(resampled.count == upstream.count)
        let error = TestResources.maximumDifference(Array(resampled.dropFirst(64).dropLast(64)), Array(upstream.dropFirst(64).dropLast(64)))
        print("44.1 kHz stereo to 16 kHz mono: max |difference| to librosa's \(error) (peak \(upstream.map(abs).max() ?? 0))")
        #expect(error < 2e-3)

        let codes = try Self.encoder().encode(clip.samples, sampleRate: clip.sampleRate)
        // Another resampler moves samples by ~1e-4, and the small random codec is sensitive (soxr's own HQ and
        // VHQ settings agree on about 3 codes in 4 there), so codes are counted, not required equal.
        let same = zip(codes, golden.codes44k).filter { $0.0 == $0.1 }.count
        print("encoder at 44.1 kHz stereo: \(same) of \(golden.codes44k.count) codes equal to upstream's")
        #expect(codes.count == golden.codes44k.count)
        #expect(Double(same) >= 0.5 * Double(golden.codes44k.count))
    }

    @Test func clipsOutsideTheLimitsAreRefusedByTheirHeader() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("neutts-encoder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = folder.appendingPathComponent("long.wav")
        try WAVWriter.write([Float](repeating: 0.1, count: 31 * 1_000), sampleRate: 1_000, to: long)
        #expect(throws: NeuTTSError.self) { try CodecEncoder.clip(contentsOf: long) }
        do {
            _ = try CodecEncoder.clip(contentsOf: long)
        } catch {
            #expect("\(error)".contains("at most 30 s"), "\(error)")
        }
        #expect(throws: NeuTTSError.self) { try Self.encoder().encode([Float](repeating: 0.1, count: 319)) }
        let header = try WAVFile.header(contentsOf: long)
        #expect(header.frameCount == 31_000 && header.duration == 31)
    }

    @Test func aGraphThatIsNotAnEncoderIsNamed() throws {
        for name in [NeuTTSModelFolder.decoder, NeuTTSModelFolder.backbone] {
            do {
                _ = try CodecEncoder(session: TestResources.session(name))
                Issue.record("\(name) was taken as an encoder")
            } catch let error as NeuTTSError {
                guard case .unexpectedModel(let path, _) = error else { Issue.record("\(error)"); continue }
                #expect(path.hasSuffix(name))
                print(error)
            }
        }
    }
}
