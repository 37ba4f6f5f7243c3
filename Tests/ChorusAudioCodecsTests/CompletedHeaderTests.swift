import CChorusFLAC
import ChorusAudio
import ChorusAudioCodecs
import Foundation
import Testing

/// What libFLAC's own decoder says of a FLAC stream: STREAMINFO's total samples and MD5, and whether the decoded
/// samples match that MD5 (checked by libFLAC when STREAMINFO carries one).
private final class FLACCheck {
    let bytes: Data
    var offset = 0
    var totalSamples: UInt64 = 0
    var md5: [UInt8] = []
    var decoded = 0

    init(_ bytes: Data) { self.bytes = bytes }

    /// (total samples stated, MD5 stated, samples decoded, libFLAC's MD5 check passed).
    static func run(_ bytes: Data) -> (total: UInt64, md5: [UInt8], decoded: Int, md5Matches: Bool) {
        let check = FLACCheck(bytes)
        let decoder = FLAC__stream_decoder_new()!
        defer { FLAC__stream_decoder_delete(decoder) }
        FLAC__stream_decoder_set_md5_checking(decoder, 1)
        let read: FLAC__StreamDecoderReadCallback = { _, buffer, size, client in
            let me = Unmanaged<FLACCheck>.fromOpaque(client!).takeUnretainedValue()
            let count = min(size!.pointee, me.bytes.count - me.offset)
            guard count > 0 else { size!.pointee = 0; return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM }
            me.bytes.copyBytes(to: buffer!, from: me.offset..<me.offset + count)
            me.offset += count
            size!.pointee = count
            return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
        }
        let write: FLAC__StreamDecoderWriteCallback = { _, frame, _, client in
            Unmanaged<FLACCheck>.fromOpaque(client!).takeUnretainedValue().decoded += Int(frame!.pointee.header.blocksize)
            return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
        }
        let metadata: FLAC__StreamDecoderMetadataCallback = { _, metadata, client in
            guard let metadata, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
            let me = Unmanaged<FLACCheck>.fromOpaque(client!).takeUnretainedValue()
            let info = metadata.pointee.data.stream_info
            me.totalSamples = info.total_samples
            me.md5 = withUnsafeBytes(of: info.md5sum) { Array($0) }
        }
        let error: FLAC__StreamDecoderErrorCallback = { _, _, _ in }
        _ = FLAC__stream_decoder_init_stream(decoder, read, nil, nil, nil, nil, write, metadata, error,
                                             Unmanaged.passUnretained(check).toOpaque())
        _ = withExtendedLifetime(check) { FLAC__stream_decoder_process_until_end_of_stream(decoder) }
        let md5Matches = FLAC__stream_decoder_finish(decoder) != 0
        return (check.totalSamples, check.md5, check.decoded, md5Matches)
    }
}

/// Encodes `samples` in chunks as a stream would, then writes the completed header over the start.
private func encodedWhole(_ samples: [Float], as encoding: AudioEncoding, rate: Int) throws -> Data {
    var encoder = try AudioStreamEncoder(encoding: encoding, sampleRate: rate)
    var data = Data()
    for start in stride(from: 0, to: samples.count, by: 1_000) {
        data.append(try encoder.encode(Array(samples[start..<min(start + 1_000, samples.count)])))
    }
    data.append(try encoder.finish())
    let header = try #require(try encoder.completedHeader())
    data.replaceSubrange(header.offset..<header.offset + header.bytes.count, with: header.bytes)
    return data
}

@Suite struct CompletedHeaderTests {
    @Test func aStreamedFLACStatesNeitherLengthNorMD5() throws {
        var encoder = try AudioStreamEncoder(encoding: .flac, sampleRate: 24_000)
        var data = try encoder.encode(tone(rate: 24_000, seconds: 0.7))
        data.append(try encoder.finish())
        let check = FLACCheck.run(data)
        #expect(check.total == 0)
        #expect(check.md5 == [UInt8](repeating: 0, count: 16))
        #expect(check.decoded == 16_800)
    }

    @Test(arguments: [24_000, 22_050])
    func aFLACSentWholeStatesItsLengthAndAnMD5ThatLibFLACConfirms(rate: Int) throws {
        let samples = tone(rate: rate, seconds: 0.7)
        let check = FLACCheck.run(try encodedWhole(samples, as: .flac, rate: rate))
        #expect(check.total == UInt64(samples.count))
        #expect(check.decoded == samples.count)
        #expect(check.md5 != [UInt8](repeating: 0, count: 16))
        #expect(check.md5Matches)
    }

    @Test func anMD5OfOtherSamplesIsCaughtByLibFLAC() throws {
        // The check above can fail: the same length with another tone's STREAMINFO does not pass libFLAC's MD5.
        let rate = 24_000
        var whole = try encodedWhole(tone(440, rate: rate, seconds: 0.5), as: .flac, rate: rate)
        let other = try encodedWhole(tone(660, rate: rate, seconds: 0.5), as: .flac, rate: rate)
        let at = FLACStreamEncoder.streamInfoOffset
        whole.replaceSubrange(at + 18..<at + 34, with: other[at + 18..<at + 34])
        #expect(!FLACCheck.run(whole).md5Matches)
    }

    @Test(arguments: [(24_000, AudioEncoding.wav), (22_050, .wav)])
    func aWAVSentWholeStatesItsLength(rate: Int, encoding: AudioEncoding) throws {
        let samples = tone(rate: rate, seconds: 0.7)
        let data = try encodedWhole(samples, as: encoding, rate: rate)
        let read = try WAVFile.decode(data)
        #expect(read.samples.count == samples.count)
        let dataBytes = data[40..<44].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let riffBytes = data[4..<8].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(Int(dataBytes) == 2 * samples.count)
        #expect(Int(riffBytes) == data.count - 8)
    }

    @Test func encodingsWithoutALengthHaveNoHeaderToComplete() throws {
        for encoding in [AudioEncoding.pcm, .mp3] {
            var encoder = try AudioStreamEncoder(encoding: encoding, sampleRate: 24_000)
            _ = try encoder.encode(tone(rate: 24_000, seconds: 0.2))
            _ = try encoder.finish()
            #expect(try encoder.completedHeader() == nil)
        }
    }
}
