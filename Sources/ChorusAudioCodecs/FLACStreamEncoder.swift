import CChorusFLAC
import Foundation

/// Mono 16-bit FLAC made piece by piece with libFLAC (Debian's libflac): the stream header first, then
/// a frame each time a block of samples is complete. The header goes out before the length is known, so its
/// STREAMINFO leaves the total length and MD5 unset (which FLAC allows); once finished, `completedStreamInfo`
/// holds the block with both, for an output that can go back and write it at `streamInfoOffset`.
public final class FLACStreamEncoder: @unchecked Sendable {
    // @unchecked: libFLAC's state is used by one synthesis task at a time, never concurrently.
    private let encoder: UnsafeMutablePointer<FLAC__StreamEncoder>
    /// What the write callback received since the last call handed it on.
    private var written = Data()
    /// STREAMINFO's 34 bytes as libFLAC reports them at the end: sizes, total samples, MD5.
    public private(set) var completedStreamInfo: Data?
    /// Where STREAMINFO's body sits in the stream: after "fLaC" and its 4-byte block header.
    public static let streamInfoOffset = 8

    public init(sampleRate: Int) throws {
        guard let encoder = FLAC__stream_encoder_new() else { throw AudioCodecError.encoderFailed(.flac, "libFLAC could not start") }
        self.encoder = encoder
        FLAC__stream_encoder_set_channels(encoder, 1)
        FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
        FLAC__stream_encoder_set_sample_rate(encoder, UInt32(sampleRate))
        FLAC__stream_encoder_set_compression_level(encoder, 5)
        FLAC__stream_encoder_set_streamable_subset(encoder, 1)
        let status = FLAC__stream_encoder_init_stream(encoder, { _, buffer, bytes, _, _, client in
            guard let buffer, let client else { return FLAC__STREAM_ENCODER_WRITE_STATUS_FATAL_ERROR }
            Unmanaged<FLACStreamEncoder>.fromOpaque(client).takeUnretainedValue().written.append(buffer, count: bytes)
            return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
        }, nil, nil, { _, metadata, client in
            guard let metadata, let client, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
            Unmanaged<FLACStreamEncoder>.fromOpaque(client).takeUnretainedValue().completedStreamInfo =
                FLACStreamEncoder.serialized(metadata.pointee.data.stream_info)
        }, Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            // deinit deletes the encoder.
            throw AudioCodecError.encoderFailed(.flac, "libFLAC refused mono 16-bit at \(sampleRate) Hz (status \(status.rawValue))")
        }
    }

    deinit {
        FLAC__stream_encoder_delete(encoder)
    }

    /// The bytes completed by `samples` (floats in -1...1): the header on the first call, then whole frames.
    public func encode(_ samples: [Float]) throws -> Data {
        if !samples.isEmpty {
            let integers = samples.map { Int32((max(-1, min(1, $0)) * 32_767).rounded()) }
            let accepted = integers.withUnsafeBufferPointer {
                FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32($0.count))
            }
            guard accepted != 0 else { throw AudioCodecError.encoderFailed(.flac, stateDescription) }
        }
        return take()
    }

    /// The last, partial block.
    public func finish() throws -> Data {
        guard FLAC__stream_encoder_finish(encoder) != 0 else { throw AudioCodecError.encoderFailed(.flac, stateDescription) }
        return take()
    }

    /// STREAMINFO's body as the format lays it out, big-endian: block sizes (16 bits each), frame sizes (24
    /// each), rate (20), channels - 1 (3), bits - 1 (5), total samples (36), MD5 (128).
    static func serialized(_ info: FLAC__StreamMetadata_StreamInfo) -> Data {
        var bytes = Data()
        func append(_ value: UInt64, bytes count: Int) {
            for shift in stride(from: 8 * (count - 1), through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        append(UInt64(info.min_blocksize), bytes: 2)
        append(UInt64(info.max_blocksize), bytes: 2)
        append(UInt64(info.min_framesize), bytes: 3)
        append(UInt64(info.max_framesize), bytes: 3)
        let packed = UInt64(info.sample_rate) << 44 | UInt64(info.channels - 1) << 41
            | UInt64(info.bits_per_sample - 1) << 36 | (info.total_samples & 0xF_FFFF_FFFF)
        append(packed, bytes: 8)
        withUnsafeBytes(of: info.md5sum) { bytes.append(contentsOf: $0) }
        return bytes
    }

    private func take() -> Data {
        defer { written = Data() }
        return written
    }

    private var stateDescription: String {
        "libFLAC stopped in state \(FLAC__stream_encoder_get_state(encoder).rawValue)"
    }
}
