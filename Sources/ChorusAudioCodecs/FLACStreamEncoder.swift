import CChorusFLAC
import Foundation

/// Mono 16-bit FLAC made piece by piece with libFLAC (Debian's libflac): the stream header first, then
/// a frame each time a block of samples is complete. With no way to seek back in a streamed response,
/// STREAMINFO leaves the total length and MD5 unset, which FLAC allows and decoders accept.
public final class FLACStreamEncoder: @unchecked Sendable {
    // @unchecked: libFLAC's state is used by one synthesis task at a time, never concurrently.
    private let encoder: UnsafeMutablePointer<FLAC__StreamEncoder>
    /// What the write callback received since the last call handed it on.
    private var written = Data()

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
        }, nil, nil, nil, Unmanaged.passUnretained(self).toOpaque())
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

    private func take() -> Data {
        defer { written = Data() }
        return written
    }

    private var stateDescription: String {
        "libFLAC stopped in state \(FLAC__stream_encoder_get_state(encoder).rawValue)"
    }
}
