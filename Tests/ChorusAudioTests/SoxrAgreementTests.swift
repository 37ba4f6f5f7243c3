import Foundation
import Testing
@testable import ChorusAudio

/// Chorus's resampler against soxr, which upstream Chatterbox uses for a clip's 16 kHz copy (librosa.resample at
/// soxr's 'HQ'), on one second of real speech (scripts/testdata/make_soxr_goldens.py): Chorus should lie no
/// further from soxr HQ than soxr's own 'VHQ' setting does.
@Suite struct SoxrAgreementTests {
    struct Golden: Decodable {
        var clip: String
        var start: Int
        var count: Int
        var inputRate: Int
        var outputRate: Int
        var versions: [String: String]
    }

    static var folder: URL { Bundle.module.url(forResource: "Resources", withExtension: nil)!.appendingPathComponent("soxr") }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// The root-mean-square of `a - b` over that of `b`, and the largest |a - b|, leaving out `edge` samples at each
    /// end (each resampler starts and ends its filter differently).
    static func difference(_ a: [Float], _ b: [Float], edge: Int = 64) -> (relative: Double, largest: Double) {
        var squares = 0.0, scale = 0.0, largest = 0.0
        for index in edge..<(min(a.count, b.count) - edge) {
            let d = Double(a[index]) - Double(b[index])
            squares += d * d
            scale += Double(b[index]) * Double(b[index])
            largest = max(largest, abs(d))
        }
        return ((squares / scale).squareRoot(), largest)
    }

    @Test func agreesWithSoxrAsSoxrsSettingsAgree() throws {
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: Self.folder.appendingPathComponent("soxr.json")))
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let clip = try WAVFile.readMono(contentsOf: tests.appendingPathComponent(golden.clip))
        #expect(clip.sampleRate == golden.inputRate)
        let excerpt = Array(clip.samples[golden.start..<(golden.start + golden.count)])
        let ours = try Resampler.resample(excerpt, from: golden.inputRate, to: golden.outputRate)
        let hq = try Self.floats("clip-16k-hq.f32"), vhq = try Self.floats("clip-16k-vhq.f32")
        #expect(ours.count == hq.count && vhq.count == hq.count)
        let oursToHQ = Self.difference(ours, hq), vhqToHQ = Self.difference(vhq, hq), oursToVHQ = Self.difference(ours, vhq)
        print("Resampler 24 -> 16 kHz on the clip, rms |diff| / rms (largest |diff|): Chorus vs soxr HQ \(oursToHQ.relative) "
              + "(\(oursToHQ.largest)), soxr VHQ vs HQ \(vhqToHQ.relative) (\(vhqToHQ.largest)), Chorus vs VHQ \(oursToVHQ.relative) "
              + "(\(oursToVHQ.largest))")
        if let out = ProcessInfo.processInfo.environment["CHORUS_RESAMPLER_DUMP"] {
            try ours.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: out))
        }
        #expect(oursToHQ.relative <= vhqToHQ.relative)
    }
}
