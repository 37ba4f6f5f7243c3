import CChorusAVCodec
import ChorusAudio
import Foundation

/// Mono AAC-LC in ADTS frames, made piece by piece with FFmpeg's own AAC encoder (Debian's libavcodec):
/// each 1,024-sample access unit goes out with its 7-byte ADTS header as soon as the encoder gives it, so a
/// streamed response plays as it arrives and a file of them is what `.aac` players read. FFmpeg's encoder,
/// not VisualOn's (`libvo-aacenc`, which FFmpeg dropped for its quality) or FDK's (non-free in Debian).
/// Rates ADTS cannot state (its table of 13) are resampled to 24 kHz first.
public final class AACStreamEncoder: @unchecked Sendable {
    // @unchecked: libavcodec's state is used by one synthesis task at a time, never concurrently.
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var resampler: StreamingResampler?
    /// Samples waiting for a whole access unit.
    private var pending: [Float] = []
    private var samplesSent: Int64 = 0
    private let frameSize: Int
    private let rateIndex: UInt8
    /// The rate of the encoded audio: the input's, or 24 kHz when ADTS has no index for it.
    public let outputRate: Int

    /// ADTS's sampling-frequency index is the position in this list.
    static let adtsRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    /// - Parameter bitRate: bits per second (64,000 by default, as the MP3 stream).
    public init(sampleRate: Int, bitRate: Int = 64_000) throws {
        if Self.adtsRates.contains(sampleRate) {
            outputRate = sampleRate
        } else {
            outputRate = 24_000
            resampler = try StreamingResampler(inputRate: sampleRate, outputRate: outputRate)
        }
        rateIndex = UInt8(Self.adtsRates.firstIndex(of: outputRate)!)
        // libavcodec logs its encoder's statistics to standard error at close; Chorus reports failures itself.
        av_log_set_level(AV_LOG_ERROR)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC), let context = avcodec_alloc_context3(codec),
              let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw AudioCodecError.encoderFailed(.aac, "libavcodec has no AAC encoder")
        }
        self.context = context
        self.frame = frame
        self.packet = packet
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(outputRate)
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.profile = FF_PROFILE_AAC_LOW
        av_channel_layout_default(&context.pointee.ch_layout, 1)
        let opened = avcodec_open2(context, codec, nil)
        guard opened == 0 else {
            throw AudioCodecError.encoderFailed(.aac, "libavcodec refused mono at \(outputRate) Hz (\(Self.describe(opened)))")
        }
        frameSize = Int(context.pointee.frame_size)
    }

    deinit {
        avcodec_free_context(&context)
        av_frame_free(&frame)
        av_packet_free(&packet)
    }

    /// The ADTS frames completed by `samples` (floats in -1...1).
    public func encode(_ samples: [Float]) throws -> Data {
        pending += resampler != nil ? resampler!.process(samples) : samples
        var data = Data()
        var start = 0
        while pending.count - start >= frameSize {
            data.append(try send(pending[start..<start + frameSize]))
            start += frameSize
        }
        pending.removeFirst(start)
        return data
    }

    /// The last, short access unit and what the encoder still held.
    public func finish() throws -> Data {
        guard let context else { return Data() }
        if resampler != nil { pending += resampler!.finish() }
        var data = try encode([])
        if !pending.isEmpty { data.append(try send(pending[...])) }
        pending = []
        try check(avcodec_send_frame(context, nil), "flushing")
        data.append(try receive())
        avcodec_free_context(&self.context)
        return data
    }

    private func send(_ samples: ArraySlice<Float>) throws -> Data {
        guard let context, let frame else { throw AudioCodecError.encoderFailed(.aac, "the stream is already finished") }
        av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(samples.count)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(outputRate)
        frame.pointee.pts = samplesSent
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout), "describing the frame")
        try check(av_frame_get_buffer(frame, 0), "allocating a frame")
        frame.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: samples.count) { target in
            for (offset, sample) in samples.enumerated() { target[offset] = max(-1, min(1, sample)) }
        }
        samplesSent += Int64(samples.count)
        try check(avcodec_send_frame(context, frame), "encoding")
        return try receive()
    }

    /// Every packet the encoder has ready, each behind its ADTS header.
    private func receive() throws -> Data {
        guard let context, let packet else { return Data() }
        var data = Data()
        while true {
            let status = avcodec_receive_packet(context, packet)
            if status == chorus_averror_again() || status == chorus_averror_eof() { return data }
            try check(status, "encoding")
            data.append(adtsHeader(payloadBytes: Int(packet.pointee.size)))
            data.append(packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
    }

    /// ADTS's fixed and variable header, no CRC: MPEG-4, AAC-LC, the rate's index, one channel, the frame's
    /// whole length (header included), buffer fullness 0x7FF (variable rate), one raw block.
    func adtsHeader(payloadBytes: Int) -> Data {
        let length = payloadBytes + 7
        let profile: UInt8 = 1  // audio object type 2 (AAC-LC) minus 1
        let channels: UInt8 = 1
        return Data([
            0xFF, 0xF1,
            profile << 6 | rateIndex << 2 | channels >> 2,
            (channels & 3) << 6 | UInt8(truncatingIfNeeded: length >> 11),
            UInt8(truncatingIfNeeded: length >> 3),
            UInt8(truncatingIfNeeded: length & 7) << 5 | 0x1F,
            0xFC,
        ])
    }

    private func check(_ status: Int32, _ doing: String) throws {
        guard status >= 0 else { throw AudioCodecError.encoderFailed(.aac, "libavcodec failed \(doing) (\(Self.describe(status)))") }
    }

    private static func describe(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
