import CChorusFLAC
import CChorusLame
import ChorusAudio
import ChorusAudioCodecs
import Foundation
import Testing

/// A tone at `rate`, `seconds` long, at half scale.
func tone(_ frequency: Double = 440, rate: Int, seconds: Double) -> [Float] {
    (0..<Int(seconds * Double(rate))).map { Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) * 0.5 }
}

/// All the bytes an encoder makes for `samples` given in three pieces.
func encoded(_ samples: [Float], as encoding: AudioEncoding, rate: Int) throws -> Data {
    var encoder = try AudioStreamEncoder(encoding: encoding, sampleRate: rate)
    var data = Data()
    let third = samples.count / 3
    for piece in [samples[..<third], samples[third..<(2 * third)], samples[(2 * third)...]] {
        data += try encoder.encode(Array(piece))
    }
    return data + (try encoder.finish())
}

/// The best normalised correlation of `window` of `reference` with `decoded`, over lags up to `maximumLag`.
func bestCorrelation(_ reference: [Float], _ decoded: [Float], window: Range<Int>, maximumLag: Int) -> Double {
    var best = 0.0
    for lag in 0..<maximumLag {
        var dot = 0.0, energyA = 0.0, energyB = 0.0
        for index in window {
            let a = Double(reference[index]), b = Double(decoded[index + lag])
            dot += a * b
            energyA += a * a
            energyB += b * b
        }
        best = max(best, dot / (energyA * energyB).squareRoot())
    }
    return best
}

/// A stereo FLAC of `bits` bits made with libFLAC directly, from integer channels.
func stereoFLAC(left: [Int32], right: [Int32], rate: Int, bits: Int) throws -> Data {
    final class Sink { var data = Data() }
    let sink = Sink()
    let encoder = try #require(FLAC__stream_encoder_new())
    defer { FLAC__stream_encoder_delete(encoder) }
    FLAC__stream_encoder_set_channels(encoder, 2)
    FLAC__stream_encoder_set_bits_per_sample(encoder, UInt32(bits))
    FLAC__stream_encoder_set_sample_rate(encoder, UInt32(rate))
    let status = FLAC__stream_encoder_init_stream(encoder, { _, buffer, bytes, _, _, client in
        Unmanaged<Sink>.fromOpaque(client!).takeUnretainedValue().data.append(buffer!, count: bytes)
        return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
    }, nil, nil, nil, Unmanaged.passUnretained(sink).toOpaque())
    #expect(status == FLAC__STREAM_ENCODER_INIT_STATUS_OK)
    let interleaved = zip(left, right).flatMap { [$0, $1] }
    #expect(interleaved.withUnsafeBufferPointer {
        FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32(left.count))
    } != 0)
    #expect(FLAC__stream_encoder_finish(encoder) != 0)
    return sink.data
}

/// A stereo MP3 made with LAME directly: `left` in the left channel, silence in the right.
func leftOnlyMP3(_ left: [Float], rate: Int) throws -> Data {
    let flags = try #require(lame_init())
    defer { lame_close(flags) }
    lame_set_in_samplerate(flags, Int32(rate))
    lame_set_num_channels(flags, 2)
    lame_set_mode(flags, STEREO)
    lame_set_brate(flags, 128)
    lame_set_bWriteVbrTag(flags, 0)
    #expect(lame_init_params(flags) >= 0)
    let right = [Float](repeating: 0, count: left.count)
    var output = [UInt8](repeating: 0, count: left.count * 2 + 7_200)
    let capacity = Int32(output.count)
    let written = output.withUnsafeMutableBufferPointer { buffer in
        lame_encode_buffer_ieee_float(flags, left, right, Int32(left.count), buffer.baseAddress, capacity)
    }
    let flushed = output.withUnsafeMutableBufferPointer { buffer in
        lame_encode_flush(flags, buffer.baseAddress! + Int(written), capacity - written)
    }
    #expect(written >= 0 && flushed >= 0)
    return Data(output[..<Int(written + flushed)])
}

@Suite struct AudioFileReaderTests {
    @Test(arguments: [24_000, 22_050, 44_100])
    func flacFromTheEncoderDecodesToTheSame16BitSamples(rate: Int) throws {
        let samples = tone(rate: rate, seconds: 1.3)
        let data = try encoded(samples, as: .flac, rate: rate)
        let decoded = try AudioFileReader.decodeMono(data)
        #expect(decoded.sampleRate == rate)
        #expect(decoded.samples.map { Int16(($0 * 32_768).rounded()) } == samples.map { Int16(pcm16: $0) })
    }

    @Test func stereo24BitFLACIsAveragedAtItsOwnScale() throws {
        let left: [Int32] = (0..<5_000).map { Int32($0 * 1_000 % 8_000_000) - 4_000_000 }
        let right: [Int32] = (0..<5_000).map { Int32(-($0 * 37 % 2_000_000)) }
        let decoded = try AudioFileReader.decodeMono(try stereoFLAC(left: left, right: right, rate: 48_000, bits: 24))
        #expect(decoded.sampleRate == 48_000)
        let expected = zip(left, right).map { Float(Double($0 + $1) / 2 / 8_388_608) }
        #expect(decoded.samples.count == expected.count)
        #expect(zip(decoded.samples, expected).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test(arguments: [24_000, 22_050, 16_000])
    func mp3FromTheEncoderDecodesToTheTone(rate: Int) throws {
        let samples = tone(rate: rate, seconds: 1.5)
        let decoded = try AudioFileReader.decodeMono(try encoded(samples, as: .mp3, rate: rate))
        #expect(decoded.sampleRate == rate)
        // LAME delays and pads by less than a few frames of 576 samples.
        #expect(decoded.samples.count >= samples.count && decoded.samples.count <= samples.count + 4 * 1_152,
                "\(decoded.samples.count) samples for \(samples.count)")
        let correlation = bestCorrelation(samples, decoded.samples, window: 4_000..<6_048, maximumLag: 2_400)
        #expect(correlation > 0.98, "best correlation \(correlation)")
    }

    @Test func stereoMP3IsMixedToMono() throws {
        let left = tone(rate: 44_100, seconds: 1)
        let decoded = try AudioFileReader.decodeMono(try leftOnlyMP3(left, rate: 44_100))
        #expect(decoded.sampleRate == 44_100)
        let correlation = bestCorrelation(left, decoded.samples, window: 10_000..<12_048, maximumLag: 3_000)
        #expect(correlation > 0.98, "best correlation \(correlation)")
        // Half the left channel's level, as the mean of the tone and silence.
        let peak = decoded.samples[10_000..<20_000].map { abs($0) }.max() ?? 0
        #expect(peak > 0.2 && peak < 0.3, "peak \(peak)")
    }

    @Test func anMP3AfterAnID3TagIsRecognised() throws {
        let mp3 = try encoded(tone(rate: 24_000, seconds: 0.5), as: .mp3, rate: 24_000)
        // ID3v2.3 with a 20-byte body: its size is written in 7-bit bytes.
        let tag = Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0, 20]) + Data(repeating: 0, count: 20)
        let decoded = try AudioFileReader.decodeMono(tag + mp3)
        #expect(decoded.sampleRate == 24_000)
        #expect(decoded.samples.count >= 12_000)
    }

    @Test func wavOfManyChannelsIsAveragedBlockByBlock() throws {
        // 3 channels of 30,000 frames: more than one block of the reader's 65,536 samples.
        let frames = 30_000
        let interleaved = (0..<(frames * 3)).map { Float(($0 * 7_919) % 2_000) / 2_000 - 0.5 }
        for format in WAVSampleFormat.allCases {
            let data = try WAVWriter.encode(interleaved, sampleRate: 11_025, channels: 3, format: format)
            let decoded = try AudioFileReader.decodeMono(data)
            #expect(decoded.sampleRate == 11_025)
            #expect(decoded.samples == (try WAVFile.decode(data)).mono)
            #expect(decoded.samples.count == frames)
        }
    }

    @Test func theContentDecidesNotTheName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = tone(rate: 16_000, seconds: 0.4)
        let flacNamedWAV = folder.appendingPathComponent("clip.wav")
        try encoded(samples, as: .flac, rate: 16_000).write(to: flacNamedWAV)
        let mp3NamedFLAC = folder.appendingPathComponent("clip.flac")
        try encoded(samples, as: .mp3, rate: 16_000).write(to: mp3NamedFLAC)
        let wavNamedMP3 = folder.appendingPathComponent("clip.mp3")
        try WAVWriter.write(samples, sampleRate: 16_000, to: wavNamedMP3)
        for url in [flacNamedWAV, mp3NamedFLAC, wavNamedMP3] {
            let decoded = try AudioFileReader.readMono(contentsOf: url)
            #expect(decoded.sampleRate == 16_000)
            #expect(decoded.samples.count >= samples.count, "\(url.lastPathComponent)")
        }
    }

    @Test func somethingElseIsRefusedByItsFirstBytes() throws {
        let text = #expect(throws: AudioCodecError.self) { try AudioFileReader.decodeMono(Data("OggS and more".utf8), path: "clip.ogg") }
        #expect(text?.description == "clip.ogg is not WAV, FLAC or MP3 audio (it starts with 'OggS'); convert it to one of those.")
        let binary = #expect(throws: AudioCodecError.self) { try AudioFileReader.decodeMono(Data([0, 1, 2, 0xFF, 9]), path: "x") }
        #expect(binary?.description == "x is not WAV, FLAC or MP3 audio (it starts with bytes 00 01 02 FF); convert it to one of those.")
        let empty = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(Data(), path: "empty.wav") }
        #expect(empty?.description == "Cannot read empty.wav: it is empty. Check the path and its permissions.")
    }

    @Test func audioLongerThanTheLimitIsRefusedInEachFormat() throws {
        let samples = tone(rate: 16_000, seconds: 2.2)
        let wav = try WAVWriter.encode(samples, sampleRate: 16_000)
        let wavError = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(wav, path: "long.wav", maximumSeconds: 2) }
        #expect(wavError == .tooLong(path: "long.wav", seconds: 2.2, limit: 2))
        // A streamed FLAC leaves STREAMINFO's length unset, so decoding stops at the limit.
        let flac = try encoded(samples, as: .flac, rate: 16_000)
        let flacError = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(flac, path: "long.flac", maximumSeconds: 2) }
        #expect(flacError == .tooLong(path: "long.flac", seconds: nil, limit: 2))
        // The streamed MP3 states none, so decoding stops at the limit.
        let mp3 = try encoded(samples, as: .mp3, rate: 16_000)
        let mp3Error = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(mp3, path: "long.mp3", maximumSeconds: 2) }
        #expect(mp3Error?.description == "long.mp3 holds more than 2 s of audio; Chorus reads at most 2 s from one file, so cut it shorter.")
        // Under the limit all three are read.
        for data in [wav, flac, mp3] { #expect(try AudioFileReader.decodeMono(data, maximumSeconds: 3).samples.count >= samples.count) }
    }

    @Test func aDamagedFLACSaysSo() throws {
        var flac = try encoded(tone(rate: 16_000, seconds: 1), as: .flac, rate: 16_000)
        for index in stride(from: flac.count / 2, to: flac.count / 2 + 64, by: 1) { flac[index] ^= 0x5A }
        let error = #expect(throws: AudioCodecError.self) { try AudioFileReader.decodeMono(flac, path: "bad.flac") }
        #expect(error?.description.hasPrefix("bad.flac is a damaged FLAC file (") == true, "\(String(describing: error))")
        #expect(error?.description.hasSuffix("); re-export or re-encode it.") == true)
    }

    @Test func encodingsAreNamedByExtension() {
        #expect(AudioEncoding(fileExtension: "MP3") == .mp3)
        #expect(AudioEncoding(fileExtension: "flac") == .flac)
        #expect(AudioEncoding(fileExtension: "wav") == .wav)
        #expect(AudioEncoding(fileExtension: "m4a") == nil)
    }
}
