import Foundation
@testable import ChorusStreaming
import Testing

@Suite struct FrameAccumulatorTests {
    @Test(arguments: [1, 2, 4, 6, 8])
    func misalignedPiecesComeOutAsTheSameWholeFrames(bytesPerFrame: Int) {
        let bytes = Data((0..<10_007).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        for seed in 1...20 as ClosedRange<UInt64> {
            var accumulator = FrameAccumulator(bytesPerFrame: bytesPerFrame)
            var out: [UInt8] = []
            for piece in split(bytes, seed: seed, maximum: 3 * bytesPerFrame + 1) {
                let frames = accumulator.append(piece)
                #expect(frames.count % bytesPerFrame == 0)
                out += frames
            }
            let rest = accumulator.finish()
            #expect(rest.count == bytes.count % bytesPerFrame)
            #expect(out + rest == [UInt8](bytes))
        }
    }

    @Test func finishForgetsThePartialFrame() {
        var accumulator = FrameAccumulator(bytesPerFrame: 4)
        #expect(accumulator.append(Data([1, 2, 3])).isEmpty)
        #expect(accumulator.finish() == [1, 2, 3])
        #expect(accumulator.finish().isEmpty)
        #expect(accumulator.append(Data([9, 9, 9, 9])) == [9, 9, 9, 9])
    }

    @Test func decodesInt16AndFloat32Exactly() throws {
        let values: [Int16] = [0, 1, -1, 32767, -32768, 12345, -23456]
        let int16 = try SampleConverter(source: AudioFormat(sampleRate: 8000, encoding: .int16),
                                        target: SinkFormat(sampleRate: 8000, channels: 1))
        #expect(int16.decode([UInt8](int16Bytes(values))) == values.map { Float($0) / 32768 })
        let floats: [Float] = [0, 1, -1, 0.25, -0.123456789, .leastNonzeroMagnitude]
        let float32 = try SampleConverter(source: AudioFormat(sampleRate: 8000, encoding: .float32),
                                          target: SinkFormat(sampleRate: 8000, channels: 1))
        #expect(float32.decode([UInt8](float32Bytes(floats))) == floats)
    }

    @Test func mapsChannels() throws {
        let stereoToMono = try SampleConverter(source: AudioFormat(sampleRate: 8000, channels: 2, encoding: .float32),
                                               target: SinkFormat(sampleRate: 8000, channels: 1))
        #expect(stereoToMono.mapChannels([0.5, 0.25, -1, 1]) == [0.375, 0])
        let monoToStereo = try SampleConverter(source: AudioFormat(sampleRate: 8000, encoding: .float32),
                                               target: SinkFormat(sampleRate: 8000, channels: 2))
        #expect(monoToStereo.mapChannels([0.5, -0.25]) == [0.5, 0.5, -0.25, -0.25])
    }
}
