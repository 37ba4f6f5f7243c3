import ChorusAudio
import Foundation
import Testing

/// `WAVStreamDecoder`: a WAV stream cut into blocks of any size gives the samples of the whole file; raw PCM
/// without a header is read at the rate given; a stream that never reaches its audio is refused once its
/// header passes the limit, not held whole.
@Suite struct WAVStreamDecoderTests {
    static let samples: [Float] = (0..<1_000).map { Float(sin(Double($0) / 7)) * 0.5 }

    @Test(arguments: [1, 3, 44, 1_000, 100_000])
    func aWAVStreamInBlocksGivesTheFilesSamples(block: Int) throws {
        let file = try WAVWriter.encode(Self.samples, sampleRate: 16_000)
        let whole = try WAVFile.decode(file, path: "whole").mono
        var decoder = WAVStreamDecoder(rawRate: 8_000, source: "test")
        var heard: [Float] = []
        var offset = 0
        while offset < file.count {
            let end = min(file.count, offset + block)
            heard += try decoder.samples(from: file.subdata(in: offset..<end), final: false)
            offset = end
        }
        heard += try decoder.samples(from: Data(), final: true)
        #expect(decoder.sampleRate == 16_000)
        #expect(heard == whole)
    }

    @Test func rawPCMIsReadAtTheRateGiven() throws {
        let pcm = Data([0x00, 0x40, 0x00, 0xC0, 0x01])  // 0.5, -0.5, and half a frame
        var decoder = WAVStreamDecoder(rawRate: 8_000, source: "test")
        #expect(try decoder.samples(from: pcm, final: true) == [0.5, -0.5])
        #expect(decoder.sampleRate == 8_000)
    }

    @Test func aHeaderThatNeverReachesItsAudioIsRefusedAtTheLimit() throws {
        // RIFF, WAVE, then a LIST chunk claiming 2 GB: the data chunk never comes.
        var head = Data("RIFF".utf8) + Data([0xFF, 0xFF, 0xFF, 0x7F]) + Data("WAVE".utf8)
        head += Data("LIST".utf8) + Data([0x00, 0x00, 0x00, 0x80])
        var decoder = WAVStreamDecoder(rawRate: 16_000, source: "standard input")
        _ = try decoder.samples(from: head, final: false)
        let block = Data(repeating: 0, count: 64 << 10)
        var fed = head.count
        let refused = #expect(throws: WAVStreamDecoder.Failure.self) {
            while fed < 8 * WAVStreamDecoder.headerLimit {
                _ = try decoder.samples(from: block, final: false)
                fed += block.count
            }
        }
        #expect(refused == .headerTooLarge(source: "standard input", limit: WAVStreamDecoder.headerLimit))
        #expect(fed <= WAVStreamDecoder.headerLimit + block.count)
    }

    @Test func compressedAudioIsNamed() throws {
        var decoder = WAVStreamDecoder(rawRate: 16_000, source: "standard input")
        #expect(throws: WAVStreamDecoder.Failure.compressed(source: "standard input", format: "FLAC audio")) {
            _ = try decoder.samples(from: Data("fLaC....".utf8), final: false)
        }
    }
}
