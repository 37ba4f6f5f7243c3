import CChorusFLAC
import ChorusAudio

/// A FLAC file in memory decoded by libFLAC (Debian's libflac) into mono floats, a frame at a time:
/// channels averaged, integers of any depth scaled to [-1, 1). STREAMINFO's rate, channels and length are
/// judged against the limits before a frame is decoded, and every frame again, into `BoundedSamples`, so a
/// stream whose frames disagree with its header still stops at the bound.
final class FLACFileDecoder {
    private let bytes: UnsafeRawBufferPointer
    private let path: String
    private let limits: AudioInputLimits
    private var offset = 0
    /// Empty until the first rate is known (STREAMINFO's, else the first frame's).
    private(set) var samples = BoundedSamples(bound: 0)
    private var sampleRate = 0
    /// The first problem met; the callbacks stop the decoder once it is set.
    private var failure: (any Error)?

    init(_ bytes: UnsafeRawBufferPointer, path: String, limits: AudioInputLimits) {
        self.bytes = bytes
        self.path = path
        self.limits = limits
    }

    /// Decodes the whole stream (once).
    func decode() throws -> (samples: [Float], sampleRate: Int) {
        guard let decoder = FLAC__stream_decoder_new() else {
            throw damaged("libFLAC could not start a decoder")
        }
        defer { FLAC__stream_decoder_delete(decoder) }
        let status = FLAC__stream_decoder_init_stream(
            decoder, Self.read, nil, nil, nil, nil, Self.write, Self.metadata, Self.error,
            Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw damaged("libFLAC refused to start (status \(status.rawValue))")
        }
        let finished = withExtendedLifetime(self) { FLAC__stream_decoder_process_until_end_of_stream(decoder) != 0 }
        if let failure { throw failure }
        guard finished else {
            throw damaged("libFLAC stopped in state \(FLAC__stream_decoder_get_state(decoder).rawValue)")
        }
        guard !samples.samples.isEmpty else { throw AudioCodecError.noAudio(path: path, format: .flac) }
        return (samples.samples, sampleRate)
    }

    private func damaged(_ reason: String) -> AudioCodecError {
        .damaged(path: path, format: .flac, reason: reason)
    }

    private static func decoder(_ client: UnsafeMutableRawPointer?) -> FLACFileDecoder {
        Unmanaged<FLACFileDecoder>.fromOpaque(client!).takeUnretainedValue()
    }

    private static let read: FLAC__StreamDecoderReadCallback = { _, buffer, size, client in
        let me = decoder(client)
        guard me.failure == nil else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        let count = min(size!.pointee, me.bytes.count - me.offset)
        guard count > 0 else {
            size!.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM
        }
        UnsafeMutableRawPointer(buffer!).copyMemory(from: me.bytes.baseAddress! + me.offset, byteCount: count)
        me.offset += count
        size!.pointee = count
        return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private static let metadata: FLAC__StreamDecoderMetadataCallback = { _, metadata, client in
        let me = decoder(client)
        guard let metadata, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
        let info = metadata.pointee.data.stream_info
        // The stated rate, channels and length refuse a file before any frame is decoded (a length of 0 is unstated).
        do {
            try me.limits.check(sampleRate: Int(info.sample_rate), channels: Int(info.channels),
                                frames: info.total_samples > 0 ? Int(clamping: info.total_samples) : nil, path: me.path)
        } catch {
            me.failure = error
            return
        }
        me.sampleRate = Int(info.sample_rate)
        me.samples = BoundedSamples(bound: me.limits.samples(at: me.sampleRate),
                                    expected: info.total_samples > 0 ? Int(clamping: info.total_samples) : nil)
    }

    private static let write: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, client in
        let me = decoder(client)
        guard me.failure == nil, let header = frame?.pointee.header, let buffer else {
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        let rate = Int(header.sample_rate), channels = Int(header.channels), count = Int(header.blocksize)
        if me.sampleRate == 0 {
            // No STREAMINFO was seen: the first frame's header is judged instead.
            do {
                try me.limits.check(sampleRate: rate, channels: channels, frames: nil, path: me.path)
            } catch {
                me.failure = error
                return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
            }
            me.sampleRate = rate
            me.samples = BoundedSamples(bound: me.limits.samples(at: rate))
        }
        guard rate == me.sampleRate else {
            me.failure = me.damaged("a frame at \(rate) Hz in a stream at \(me.sampleRate) Hz")
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        guard channels <= me.limits.maximumChannels else {
            me.failure = AudioFileError.tooManyChannels(path: me.path, channels: channels, limit: me.limits.maximumChannels)
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        guard me.samples.makeRoom(for: count) else {
            me.failure = AudioFileError.tooLong(path: me.path, seconds: nil, limit: me.limits.seconds(at: rate))
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        // Integers of `bits` bits span -2^(bits-1) ..< 2^(bits-1); the channel mean shares one scale.
        let scale = 1 / (Float(1 << (header.bits_per_sample - 1)) * Float(channels))
        for index in 0..<count {
            var sum: Float = 0
            for channel in 0..<channels { sum += Float(buffer[channel]![index]) }
            me.samples.append(sum * scale)
        }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    private static let error: FLAC__StreamDecoderErrorCallback = { _, status, client in
        let me = decoder(client)
        guard me.failure == nil else { return }
        let reason = switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: "libFLAC lost the frame sync"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: "a frame header is corrupt"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: "a frame fails its checksum"
        default: "libFLAC error \(status.rawValue)"
        }
        me.failure = me.damaged(reason)
    }
}
