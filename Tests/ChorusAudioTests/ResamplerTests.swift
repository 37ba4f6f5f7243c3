import ChorusDSP
import Foundation
import Testing
@testable import ChorusAudio

func sine(frequency: Double, rate: Int, count: Int, amplitude: Double = 0.5) -> [Float] {
    (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// Amplitude of the `frequency` component of `signal`, by correlation over whole periods in the middle.
func amplitude(of frequency: Double, in signal: [Float], rate: Int) -> Double {
    let start = signal.count / 4
    let end = 3 * signal.count / 4
    var re = 0.0
    var im = 0.0
    for index in start..<end {
        let angle = 2 * Double.pi * frequency * Double(index) / Double(rate)
        re += Double(signal[index]) * cos(angle)
        im += Double(signal[index]) * sin(angle)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(end - start)
}

@Suite struct ResamplerTests {
    static let ratePairs = [(44_100, 16_000), (48_000, 16_000), (22_050, 48_000), (24_000, 48_000),
                            (16_000, 24_000), (44_100, 48_000), (48_000, 44_100), (44_101, 16_000), (8000, 8000)]

    @Test(arguments: ratePairs)
    func chunkedEqualsWhole(_ rates: (Int, Int)) throws {
        var random = SeededRandom(seed: 7)
        let input = (0..<60_000).map { _ in Float.random(in: -1...1, using: &random) }
        let whole = try Resampler.resample(input, from: rates.0, to: rates.1)
        #expect(whole.count == (input.count * rates.1 + rates.0 - 1) / rates.0)
        var resampler = try StreamingResampler(inputRate: rates.0, outputRate: rates.1)
        var chunked: [Float] = []
        var offset = 0
        while offset < input.count {
            // Small chunks (pairs joined across chunks) and large ones (several block pairs read in place).
            let largest = Bool.random(using: &random) ? 700 : 15_000
            let size = min(input.count - offset, Int.random(in: 0...largest, using: &random))
            chunked += resampler.process(Array(input[offset..<(offset + size)]))
            offset += size
        }
        chunked += resampler.finish()
        #expect(chunked == whole)
        // finish() resets: a second stream gives the same result again.
        #expect(resampler.process(input) + resampler.finish() == whole)
    }

    @Test(arguments: ratePairs)
    func passbandSineKeepsItsAmplitudeAndPhase(_ rates: (Int, Int)) throws {
        let frequency = 1000.0
        let input = sine(frequency: frequency, rate: rates.0, count: rates.0 / 2)
        let output = try Resampler.resample(input, from: rates.0, to: rates.1)
        let expected = sine(frequency: frequency, rate: rates.1, count: output.count)
        let middle = (output.count / 4)..<(3 * output.count / 4)
        let error = middle.map { abs(output[$0] - expected[$0]) }.max()!
        #expect(error < 1e-4, "\(rates): \(error)")
    }

    @Test func stopbandIsSuppressed() throws {
        // 9 kHz at 48 kHz lies above the 8 kHz Nyquist of 16 kHz: it must not fold back to 7 kHz.
        let input = sine(frequency: 9000, rate: 48_000, count: 48_000)
        let output = try Resampler.resample(input, from: 48_000, to: 16_000)
        let alias = amplitude(of: 7000, in: output, rate: 16_000)
        #expect(20 * log10(alias / 0.5) < -110)
    }

    /// 48 kHz to 16 kHz runs the sharp stage's divide-by-three path alone (no polyphase stage).
    @Test func dividingByThreeKeepsThePassbandAndRemovesTheStopband() throws {
        let count = 48_000
        let passband = [500.0, 3_000.0, 7_000.0]
        let stopband = [8_300.0, 11_000.0, 19_000.0, 23_500.0]
        var input = [Float](repeating: 0, count: count)
        for (index, frequency) in (passband + stopband).enumerated() {
            let tone = sine(frequency: frequency, rate: 48_000, count: count, amplitude: 0.1)
            for n in 0..<count { input[n] += tone[n] * (index % 2 == 0 ? 1 : -1) }
        }
        let output = try Resampler.resample(input, from: 48_000, to: 16_000)
        var expected = [Float](repeating: 0, count: output.count)
        for (index, frequency) in passband.enumerated() {
            let tone = sine(frequency: frequency, rate: 16_000, count: output.count, amplitude: 0.1)
            for n in 0..<output.count { expected[n] += tone[n] * (index % 2 == 0 ? 1 : -1) }
        }
        let middle = (output.count / 4)..<(3 * output.count / 4)
        let error = middle.map { abs(Double(output[$0]) - Double(expected[$0])) }.max()!
        // The stopband tones fold to 7.7, 5, 3 and 7.5 kHz; they must be gone below -120 dB of their level.
        #expect(20 * log10(error / 0.1) < -120, "\(error)")
    }

    @Test func rejectsInvalidRates() {
        #expect(throws: AudioFileError.invalidSampleRate(0)) { try StreamingResampler(inputRate: 0, outputRate: 16_000) }
        #expect(throws: AudioFileError.invalidSampleRate(-1)) { try Resampler.resample([], from: 16_000, to: -1) }
    }

    @Test func emptyAndTinyInputs() throws {
        #expect(try Resampler.resample([], from: 44_100, to: 16_000) == [])
        #expect(try Resampler.resample([1], from: 16_000, to: 48_000).count == 3)
    }
}
