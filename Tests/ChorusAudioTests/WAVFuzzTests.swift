import ChorusDSP
import Foundation
import Testing
@testable import ChorusAudio

/// Seeded mutation testing of the WAV reader: every mutated file must decode or throw `AudioFileError`,
/// never crash or read out of bounds. `swift test` runs 20,000 mutations; set CHORUS_WAV_FUZZ_ITERATIONS
/// (for example to 1000000) for a long run.
@Suite struct WAVFuzzTests {
    static var seeds: [Data] {
        var seeds: [Data] = []
        let tags: [(Int, Int)] = [(1, 8), (1, 16), (1, 24), (1, 32), (3, 32), (3, 64)]
        for (index, (tag, bits)) in tags.enumerated() {
            let channels = 1 + index % 3
            let payload = (0..<(channels * (bits / 8) * 7)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            seeds.append(WAVBytes.file([
                ("LIST", Array("INFOISFT".utf8) + [5], nil),
                ("fmt ", WAVBytes.format(tag: tag, channels: channels, rate: 16_000, bits: bits,
                                         extensible: index % 2 == 1), nil),
                ("fact", [7, 0, 0, 0], nil),
                ("data", payload, index == 2 ? 0xFFFF_FFFF : nil),
            ]))
        }
        return seeds
    }

    @Test func mutatedFilesNeverCrashTheReader() {
        let iterations = Int(ProcessInfo.processInfo.environment["CHORUS_WAV_FUZZ_ITERATIONS"] ?? "") ?? 20_000
        var random = SeededRandom(seed: 0xC0FFEE)
        let seeds = Self.seeds
        var decoded = 0
        var rejected = 0
        for _ in 0..<iterations {
            var bytes = [UInt8](seeds[Int.random(in: 0..<seeds.count, using: &random)])
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                Self.mutate(&bytes, using: &random)
            }
            do {
                let file = try WAVFile.decode(Data(bytes))
                #expect(file.samples.count == file.frameCount * file.channels)
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        print("WAV fuzz: \(iterations) mutated inputs, \(decoded) decoded, \(rejected) rejected, no crash")
        #expect(decoded + rejected == iterations)
    }

    static func mutate(_ bytes: inout [UInt8], using random: inout SeededRandom) {
        let interesting: [UInt32] = [0, 1, 2, 3, 15, 16, 17, 39, 40, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]
        switch Int.random(in: 0..<6, using: &random) {
        case 0 where !bytes.isEmpty:  // flip a byte
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        case 1 where bytes.count >= 4:  // an interesting 32-bit value anywhere (sizes, rates, tags)
            let offset = Int.random(in: 0...(bytes.count - 4), using: &random)
            let value = interesting[Int.random(in: 0..<interesting.count, using: &random)]
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        case 2:  // truncate
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
        case 3:  // insert random bytes
            let at = Int.random(in: 0...bytes.count, using: &random)
            bytes.insert(contentsOf: (0..<Int.random(in: 1...9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
        case 4 where bytes.count >= 2:  // an interesting 16-bit value (channels, bits, format tag)
            let offset = Int.random(in: 0...(bytes.count - 2), using: &random)
            let value = [0, 1, 2, 3, 8, 12, 24, 33, 64, 0xFFFE, 0xFFFF][Int.random(in: 0..<11, using: &random)]
            bytes[offset] = UInt8(value & 0xFF)
            bytes[offset + 1] = UInt8(value >> 8)
        default:  // duplicate a slice
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let end = min(bytes.count, start + Int.random(in: 1...16, using: &random))
            bytes.insert(contentsOf: bytes[start..<end], at: Int.random(in: 0...bytes.count, using: &random))
        }
    }
}
