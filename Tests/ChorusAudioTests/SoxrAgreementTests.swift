import Foundation
import Testing
@testable import ChorusAudio

/// Chorus's resampler against soxr on real clips (scripts/testdata/make_soxr_goldens.py): the conversions Chatterbox's
/// clip path makes (16 kHz and 44.1 kHz stereo to 24 kHz, where upstream reads a clip with `librosa.load(sr=24000)`,
/// soxr at 'HQ', and Chorus with `Resampler` in `SpeechEncoder.preparedClip`), and 24 to 16 kHz.
///
/// Chorus lies within 1e-3 of the signal's RMS (-60 dB) of upstream's read on each; going down it lies no further from
/// soxr HQ than soxr's own 'VHQ' does. Going up from 16 kHz it lies further (4.6e-4 against VHQ's 2.5e-4, measured
/// with make_soxr_goldens.py's files): all of that difference is between 7.32 and 8 kHz, the last 8.5% below the
/// clip's Nyquist frequency, where Chorus's passband (flat to 91.5% of it) has ended and soxr's has not.
@Suite struct SoxrAgreementTests {
    struct Golden: Decodable {
        var cases: [Case]
        var versions: [String: String]
    }

    /// One conversion: the clip (all of it, or `count` samples from `start`), the exact output length (librosa's
    /// can be one more, a zero: see the generator), the output samples kept from `keptFrom`, and the files of soxr
    /// at 'HQ' and 'VHQ'.
    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var clip: String
        var inputRate: Int
        var channels: Int
        var start: Int?
        var count: Int?
        var outputRate: Int
        var outputSamples: Int
        var keptFrom: Int
        var kept: Int
        var files: [String]

        var testDescription: String { name }
    }

    static var folder: URL { Bundle.module.url(forResource: "Resources", withExtension: nil)!.appendingPathComponent("soxr") }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("soxr.json")),
              let golden = try? JSONDecoder().decode(Golden.self, from: data) else { return [] }
        return golden.cases
    }()

    /// The root-mean-square of `a - b` over that of `b`, and the largest |a - b|, leaving out `edge` samples at each
    /// end (each resampler starts and ends its filter differently).
    static func difference(_ a: ArraySlice<Float>, _ b: [Float], edge: Int = 64) -> (relative: Double, largest: Double) {
        var squares = 0.0, scale = 0.0, largest = 0.0
        for index in edge..<(min(a.count, b.count) - edge) {
            let d = Double(a[a.startIndex + index]) - Double(b[index])
            squares += d * d
            scale += Double(b[index]) * Double(b[index])
            largest = max(largest, abs(d))
        }
        return ((squares / scale).squareRoot(), largest)
    }

    @Test func everyConversionIsThere() {
        #expect(Self.cases.map(\.name) == ["speech-16k-to-24k", "clip-44k-to-24k", "clip-24k-to-16k"])
    }

    @Test(arguments: cases) func agreesWithSoxrAsSoxrsSettingsAgree(_ conversion: Case) throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let clip = try WAVFile.readMono(contentsOf: tests.appendingPathComponent(conversion.clip))
        #expect(clip.sampleRate == conversion.inputRate)
        let input = conversion.start.map { Array(clip.samples[$0..<($0 + (conversion.count ?? 0))]) } ?? clip.samples
        let ours = try Resampler.resample(input, from: conversion.inputRate, to: conversion.outputRate)
        #expect(ours.count == conversion.outputSamples)
        let kept = ours[conversion.keptFrom..<(conversion.keptFrom + conversion.kept)]
        let hq = try Self.floats(conversion.files[0]), vhq = try Self.floats(conversion.files[1])
        #expect(hq.count == conversion.kept && vhq.count == conversion.kept)
        let oursToHQ = Self.difference(kept, hq), vhqToHQ = Self.difference(vhq[...], hq)
        let oursToVHQ = Self.difference(kept, vhq)
        print("Resampler \(conversion.name), rms |diff| / rms (largest |diff|): Chorus vs soxr HQ \(oursToHQ.relative) "
              + "(\(oursToHQ.largest)), soxr VHQ vs HQ \(vhqToHQ.relative) (\(vhqToHQ.largest)), Chorus vs VHQ "
              + "\(oursToVHQ.relative) (\(oursToVHQ.largest))")
        #expect(oursToHQ.relative < 1e-3)
        if conversion.outputRate < conversion.inputRate { #expect(oursToHQ.relative <= vhqToHQ.relative) }
    }
}
