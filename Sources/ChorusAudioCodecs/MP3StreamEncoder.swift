import CChorusLame
import Foundation

/// Mono MP3 made piece by piece with LAME (Debian's libmp3lame): constant bit rate and no Xing/LAME
/// header, since a streamed response cannot go back to write one, so every frame can be played as it
/// arrives. MPEG-2 takes the engines' 16, 22.05 and 24 kHz as they are; LAME resamples other rates.
public final class MP3StreamEncoder: @unchecked Sendable {
    // @unchecked: LAME's state is used by one synthesis task at a time, never concurrently.
    private let flags: OpaquePointer

    /// - Parameter bitRate: kilobits per second (64 by default: plenty for one voice).
    public init(sampleRate: Int, bitRate: Int = 64) throws {
        guard let flags = lame_init() else { throw AudioCodecError.encoderFailed(.mp3, "LAME could not start") }
        self.flags = flags
        lame_set_in_samplerate(flags, Int32(sampleRate))
        lame_set_num_channels(flags, 1)
        lame_set_mode(flags, MONO)
        lame_set_brate(flags, Int32(bitRate))
        lame_set_quality(flags, 5)
        lame_set_bWriteVbrTag(flags, 0)
        guard lame_init_params(flags) >= 0 else {
            throw AudioCodecError.encoderFailed(.mp3, "LAME refused mono at \(sampleRate) Hz, \(bitRate) kbit/s")
        }
    }

    deinit {
        lame_close(flags)
    }

    /// The rate of the frames LAME writes (the input's, or the nearest MPEG rate).
    public var outputRate: Int { Int(lame_get_out_samplerate(flags)) }

    /// The frames completed by `samples` (floats in -1...1); LAME keeps the rest for the next call.
    public func encode(_ samples: [Float]) throws -> Data {
        guard !samples.isEmpty else { return Data() }
        // LAME's own bound for the worst case: 1.25 bytes per sample plus 7200.
        let capacity = samples.count + samples.count / 4 + 7_200
        var output = [UInt8](repeating: 0, count: capacity)
        let written = samples.withUnsafeBufferPointer { pcm in
            output.withUnsafeMutableBufferPointer { buffer in
                lame_encode_buffer_ieee_float(flags, pcm.baseAddress, pcm.baseAddress, Int32(pcm.count),
                                              buffer.baseAddress, Int32(capacity))
            }
        }
        guard written >= 0 else { throw AudioCodecError.encoderFailed(.mp3, "LAME failed encoding (\(written))") }
        return Data(output[..<Int(written)])
    }

    /// The last frames, padded out.
    public func finish() throws -> Data {
        var output = [UInt8](repeating: 0, count: 7_200)
        let written = output.withUnsafeMutableBufferPointer { lame_encode_flush(flags, $0.baseAddress, Int32($0.count)) }
        guard written >= 0 else { throw AudioCodecError.encoderFailed(.mp3, "LAME failed flushing (\(written))") }
        return Data(output[..<Int(written)])
    }
}
