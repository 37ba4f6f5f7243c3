@testable import ChorusAudio
import Foundation
import Testing

/// SincResampler against torchaudio.functional.resample's own outputs
/// (scripts/testdata/make_sinc_resampler_goldens.py).
@Suite struct SincResamplerTests {
    static let folder = Bundle.module.url(forResource: "Resources/sinc", withExtension: nil)

    static func floats(_ name: String) throws -> [Float] {
        let url = try #require(folder?.appendingPathComponent(name))
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { SampleConversion.floats(decoding: $0, encoding: .float(bits: 32), count: data.count / 4) }
    }

    @Test(arguments: [(22050, 16000), (22050, 24000), (44100, 16000), (48000, 24000), (8000, 16000), (24000, 16000)])
    func matchesTorchaudio(_ rates: (Int, Int)) throws {
        let (source, target) = rates
        let input = try Self.floats("input_\(source).f32")
        let expected = try Self.floats("\(source)_\(target).f32")
        let output = try SincResampler(inputRate: source, outputRate: target).resample(input)
        #expect(output.count == expected.count)
        let difference = zip(output, expected).map { abs($0 - $1) }.max() ?? .infinity
        print("SincResampler \(source) -> \(target): \(output.count) samples, max |diff| from torchaudio \(difference)")
        // torch adds the 459 products of the 22050 Hz kernels in float32 in an order of its own: up to 1e-5 apart.
        #expect(difference < 2e-5)
    }

    @Test func equalRatesReturnTheInputAndBadRatesAreRefused() throws {
        #expect(try SincResampler(inputRate: 16_000, outputRate: 16_000).resample([1, 2, 3]) == [1, 2, 3])
        #expect(throws: AudioFileError.invalidSampleRate(0)) { try SincResampler(inputRate: 0, outputRate: 16_000) }
    }
}
