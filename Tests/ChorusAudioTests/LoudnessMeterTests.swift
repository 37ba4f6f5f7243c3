@testable import ChorusAudio
import Foundation
import Testing

/// LoudnessMeter against pyloudnorm's own integrated loudness and upstream Chatterbox's -27 LUFS gain
/// (scripts/testdata/make_loudness_goldens.py), on synthetic signals and real speech.
@Suite struct LoudnessMeterTests {
    static let folder = Bundle.module.url(forResource: "Resources/loudness", withExtension: nil)

    struct Case: Decodable, Sendable, CustomStringConvertible {
        let name: String
        let rate: Int
        let channels: Int
        let loudness: Double
        let wav: Bool
        let normalized: Bool
        var description: String { name }
    }

    struct Index: Decodable {
        let target: Double
        let cases: [Case]
    }

    static func index() throws -> Index {
        let url = try #require(folder?.appendingPathComponent("loudness.json"))
        return try JSONDecoder().decode(Index.self, from: Data(contentsOf: url))
    }

    static func floats(_ name: String) throws -> [Float] {
        let url = try #require(folder?.appendingPathComponent(name))
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { SampleConversion.floats(decoding: $0, encoding: .float(bits: 32), count: data.count / 4) }
    }

    static func samples(_ item: Case) throws -> [Float] {
        if item.wav {
            let url = try #require(folder?.appendingPathComponent("\(item.name).wav"))
            return try WAVFile.read(contentsOf: url).samples
        }
        return try floats("\(item.name).f32")
    }

    @Test(arguments: try! LoudnessMeterTests.index().cases)
    func integratedLoudnessMatchesPyloudnorm(_ item: Case) throws {
        let samples = try Self.samples(item)
        let measured = try LoudnessMeter(sampleRate: item.rate).integratedLoudness(samples, channels: item.channels)
        print("LoudnessMeter \(item.name): \(measured) LUFS, pyloudnorm \(item.loudness), diff \(measured - item.loudness)")
        // pyloudnorm squares and sums the float32 filter outputs in float32; Chorus sums in double.
        #expect(abs(measured - item.loudness) < 1e-6)
    }

    @Test(arguments: try! LoudnessMeterTests.index().cases.filter(\.normalized))
    func normalisationMatchesUpstream(_ item: Case) throws {
        let samples = try Self.samples(item)
        let expected = try Self.floats("\(item.name).normalized.f32")
        let output = try LoudnessMeter(sampleRate: item.rate).normalized(samples, to: try Self.index().target)
        #expect(output.count == expected.count)
        let worst = zip(output, expected).map { abs($0 - $1) / max(abs($1), 1e-6) }.max() ?? .infinity
        #expect(worst < 1e-6)
        // And the result measures at the target.
        let after = try LoudnessMeter(sampleRate: item.rate).integratedLoudness(output)
        #expect(abs(after - (try Self.index().target)) < 1e-4)
    }

    @Test func silenceIsMinusInfinityAndKeptAsIs() throws {
        let meter = try LoudnessMeter(sampleRate: 24_000)
        let silence = [Float](repeating: 0, count: 24_000)
        #expect(try meter.integratedLoudness(silence) == -.infinity)
        #expect(try meter.normalized(silence, to: -27) == silence)
    }

    @Test func badInputIsRefusedWithReasons() throws {
        let meter = try LoudnessMeter(sampleRate: 24_000)
        #expect(throws: LoudnessError.self) { try meter.integratedLoudness([Float](repeating: 0.1, count: 9_599)) }
        #expect(throws: AudioFileError.invalidChannelCount(6)) { try meter.integratedLoudness([0, 0, 0, 0, 0, 0], channels: 6) }
        #expect(throws: AudioFileError.partialFrame(sampleCount: 3, channels: 2)) { try meter.integratedLoudness([0, 0, 0], channels: 2) }
        #expect(throws: AudioFileError.invalidSampleRate(0)) { try LoudnessMeter(sampleRate: 0) }
        let message = "\(LoudnessError.tooShort(seconds: 0.1, blockSeconds: 0.4))"
        #expect(message.contains("0.100 s") && message.contains("longer clip"))
    }
}
