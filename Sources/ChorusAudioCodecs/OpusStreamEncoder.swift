import CChorusOpus
import Foundation

/// Mono Ogg Opus made piece by piece with libopusenc (Debian's libopusenc, over libopus): the Ogg headers
/// first, then a page each time libopusenc closes one. Opus runs at 48 kHz; libopusenc resamples the
/// engine's rate itself and records it as the input rate. Pages are closed at least every 100 ms and
/// audio is held back at most 100 ms (libopusenc's defaults hold 2 s and wait a second), so a streamed
/// response plays soon after the first words.
public final class OpusStreamEncoder: @unchecked Sendable {
    // @unchecked: libopusenc's state is used by one synthesis task at a time, never concurrently.
    private var encoder: OpaquePointer?
    private var comments: OpaquePointer?
    /// What the write callback received since the last call handed it on.
    private var written = Data()
    private var headersSent = false

    /// - Parameter bitRate: bits per second (32,000 by default: transparent for one voice in Opus).
    public init(sampleRate: Int, bitRate: Int = 32_000) throws {
        guard let comments = ope_comments_create() else { throw AudioCodecError.encoderFailed(.opus, "libopusenc could not start") }
        self.comments = comments
        var callbacks = OpusEncCallbacks(write: { client, bytes, count in
            guard let client, let bytes else { return 1 }
            Unmanaged<OpusStreamEncoder>.fromOpaque(client).takeUnretainedValue().written.append(bytes, count: Int(count))
            return 0
        }, close: { _ in 0 })
        var status: Int32 = 0
        encoder = ope_encoder_create_callbacks(&callbacks, Unmanaged.passUnretained(self).toOpaque(), comments,
                                               Int32(sampleRate), 1, 0, &status)
        guard let encoder, status == OPE_OK else {
            throw AudioCodecError.encoderFailed(.opus, "libopusenc refused mono at \(sampleRate) Hz (\(Self.describe(status)))")
        }
        guard chorus_ope_set_bitrate(encoder, Int32(bitRate)) == OPE_OK,
              chorus_ope_set_decision_delay(encoder, 4_800) == OPE_OK,
              chorus_ope_set_muxing_delay(encoder, 4_800) == OPE_OK else {
            throw AudioCodecError.encoderFailed(.opus, "libopusenc refused \(bitRate) bit/s or a 100 ms page")
        }
    }

    deinit {
        if let encoder { ope_encoder_destroy(encoder) }
        if let comments { ope_comments_destroy(comments) }
    }

    /// The bytes completed by `samples` (floats in -1...1): the headers on the first call, then whole pages.
    public func encode(_ samples: [Float]) throws -> Data {
        guard let encoder else { throw AudioCodecError.encoderFailed(.opus, "the stream is already finished") }
        if !headersSent {
            try check(ope_encoder_flush_header(encoder), "writing the headers")
            headersSent = true
        }
        if !samples.isEmpty {
            let status = samples.withUnsafeBufferPointer { ope_encoder_write_float(encoder, $0.baseAddress, Int32($0.count)) }
            try check(status, "encoding")
        }
        return take()
    }

    /// The last pages, the stream's end marked.
    public func finish() throws -> Data {
        guard let encoder else { return Data() }
        try check(ope_encoder_drain(encoder), "finishing")
        ope_encoder_destroy(encoder)
        self.encoder = nil
        return take()
    }

    private func check(_ status: Int32, _ doing: String) throws {
        guard status == OPE_OK else { throw AudioCodecError.encoderFailed(.opus, "libopusenc failed \(doing) (\(Self.describe(status)))") }
    }

    private static func describe(_ status: Int32) -> String {
        String(cString: ope_strerror(status))
    }

    private func take() -> Data {
        defer { written = Data() }
        return written
    }
}
