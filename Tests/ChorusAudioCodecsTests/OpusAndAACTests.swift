import CChorusAVCodec
import CChorusOpusFile
import ChorusAudioCodecs
import Foundation
import Testing

/// Encodes `samples` in uneven chunks, as an engine hands them over.
private func streamed(_ samples: [Float], as encoding: AudioEncoding, rate: Int) throws -> (data: Data, encoder: AudioStreamEncoder) {
    var encoder = try AudioStreamEncoder(encoding: encoding, sampleRate: rate)
    var data = Data()
    var start = 0
    for size in [1_000, 333, 4_800, 7] + Array(repeating: 2_400, count: samples.count / 2_400 + 1) where start < samples.count {
        data.append(try encoder.encode(Array(samples[start..<min(start + size, samples.count)])))
        start += size
    }
    data.append(try encoder.finish())
    return (data, encoder)
}

/// The share of `samples`' energy at `frequency` (Goertzel), near 1 for a pure tone of it.
private func toneShare(_ samples: ArraySlice<Float>, frequency: Double, rate: Int) -> Double {
    let omega = 2 * Double.pi * frequency / Double(rate)
    var previous = 0.0, beforePrevious = 0.0, energy = 0.0
    for sample in samples {
        let value = Double(sample) + 2 * cos(omega) * previous - beforePrevious
        beforePrevious = previous
        previous = value
        energy += Double(sample) * Double(sample)
    }
    let power = previous * previous + beforePrevious * beforePrevious - 2 * cos(omega) * previous * beforePrevious
    return 2 * power / (Double(samples.count) * energy)
}

/// Ogg Opus decoded by opusfile (Xiph's own reader, not Chorus's): samples at 48 kHz, pre-skip and end trimming applied.
private func opusDecoded(_ data: Data) throws -> [Float] {
    var error: Int32 = 0
    let file = data.withUnsafeBytes { op_open_memory($0.bindMemory(to: UInt8.self).baseAddress, $0.count, &error) }
    let opened = try #require(file, "opusfile refused the stream (\(error))")
    defer { op_free(opened) }
    var samples: [Float] = []
    var buffer = [Float](repeating: 0, count: 5_760)
    while true {
        let count = op_read_float(opened, &buffer, Int32(buffer.count), nil)
        try #require(count >= 0, "opusfile failed reading (\(count))")
        if count == 0 { return samples }
        samples += buffer[..<Int(count)]
    }
}

/// The ADTS frames' headers in order: (sampling-frequency index, channel configuration, frame length).
private func adtsFrames(_ data: Data) throws -> [(rateIndex: Int, channels: Int, length: Int)] {
    var frames: [(Int, Int, Int)] = []
    var offset = 0
    let bytes = [UInt8](data)
    while offset < bytes.count {
        try #require(bytes.count - offset >= 7 && bytes[offset] == 0xFF && bytes[offset + 1] & 0xF6 == 0xF0, "no ADTS sync at \(offset)")
        let rateIndex = Int(bytes[offset + 2] >> 2 & 0xF)
        let channels = Int(bytes[offset + 2] & 1) << 2 | Int(bytes[offset + 3] >> 6)
        let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
        try #require(length > 7)
        frames.append((rateIndex, channels, length))
        offset += length
    }
    try #require(offset == bytes.count, "the last frame runs past the end")
    return frames
}

/// ADTS decoded by FFmpeg's own AAC decoder, frame by frame: the decoded samples (the encoder's priming included).
private func aacDecoded(_ data: Data) throws -> [Float] {
    let decoder = try #require(avcodec_find_decoder(AV_CODEC_ID_AAC))
    var context = avcodec_alloc_context3(decoder)
    defer { avcodec_free_context(&context) }
    try #require(avcodec_open2(context, decoder, nil) == 0)
    var packet = av_packet_alloc()
    var frame = av_frame_alloc()
    defer { av_packet_free(&packet); av_frame_free(&frame) }
    var samples: [Float] = []
    func drain() {
        while avcodec_receive_frame(context, frame) == 0 {
            let count = Int(frame!.pointee.nb_samples)
            frame!.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: count) { samples += UnsafeBufferPointer(start: $0, count: count) }
        }
    }
    var offset = 0
    for header in try adtsFrames(data) {
        try #require(av_new_packet(packet, Int32(header.length)) == 0)
        data.copyBytes(to: packet!.pointee.data, from: offset..<offset + header.length)
        try #require(avcodec_send_packet(context, packet) == 0)
        av_packet_unref(packet)
        drain()
        offset += header.length
    }
    _ = avcodec_send_packet(context, nil)
    drain()
    return samples
}

@Suite struct OpusAndAACTests {
    @Test(arguments: [24_000, 22_050, 16_000])
    func opusDecodesToTheToneAtItsLength(rate: Int) throws {
        let tone = tone(440, rate: rate, seconds: 1.5)
        let (data, encoder) = try streamed(tone, as: .opus, rate: rate)
        #expect(encoder.outputRate == 48_000)
        #expect(data.prefix(4) == Data("OggS".utf8))
        let decoded = try opusDecoded(data)
        // The end is trimmed by the last page's granule position: 1.5 s at 48 kHz, to a sample or two of resampling.
        #expect(abs(decoded.count - 72_000) <= 2, "\(decoded.count) samples")
        #expect(toneShare(decoded[12_000..<60_000], frequency: 440, rate: 48_000) > 0.95)
    }

    @Test func opusSendsItsHeadersBeforeAnySecondOfAudio() throws {
        var encoder = try AudioStreamEncoder(encoding: .opus, sampleRate: 24_000)
        let first = try encoder.encode(tone(440, rate: 24_000, seconds: 0.05))
        #expect(first.prefix(4) == Data("OggS".utf8))
        let later = try encoder.encode(tone(440, rate: 24_000, seconds: 0.3))
        #expect(!later.isEmpty, "libopusenc held 0.35 s of audio back; pages should close every 100 ms")
    }

    @Test(arguments: [(24_000, 6), (22_050, 7), (16_000, 8), (44_100, 4)])
    func aacIsADTSFramesThatDecodeToTheTone(rate: Int, index: Int) throws {
        let tone = tone(440, rate: rate, seconds: 1.5)
        let (data, encoder) = try streamed(tone, as: .aac, rate: rate)
        #expect(encoder.outputRate == rate)
        let frames = try adtsFrames(data)
        #expect(frames.allSatisfy { $0.rateIndex == index && $0.channels == 1 })
        let decoded = try aacDecoded(data)
        // ADTS cannot state the encoder's priming (1,024 samples) or the last frame's padding.
        #expect(decoded.count >= tone.count && decoded.count <= tone.count + 2_048, "\(decoded.count) of \(tone.count)")
        #expect(decoded.count == 1_024 * frames.count)
        #expect(toneShare(decoded[(rate / 4)..<rate], frequency: 440, rate: rate) > 0.95)
    }

    @Test func aRateADTSCannotStateIsResampledTo24kHz() throws {
        let (data, encoder) = try streamed(tone(440, rate: 20_000, seconds: 1), as: .aac, rate: 20_000)
        #expect(encoder.outputRate == 24_000)
        #expect(try adtsFrames(data).allSatisfy { $0.rateIndex == 6 })
        let decoded = try aacDecoded(data)
        #expect(toneShare(decoded[6_000..<20_000], frequency: 440, rate: 24_000) > 0.95)
    }

    @Test func encodingsAreNamedByTheirExtensions() {
        #expect(AudioEncoding(fileExtension: "opus") == .opus)
        #expect(AudioEncoding(fileExtension: "OGG") == .opus)
        #expect(AudioEncoding(fileExtension: "aac") == .aac)
        #expect(AudioEncoding.opus.mediaType == "audio/ogg")
        #expect(AudioEncoding.aac.mediaType == "audio/aac")
    }
}
