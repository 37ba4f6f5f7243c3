import CChorusMPG123
import ChorusAudio

/// MPEG audio (MP3, and layers I and II) in memory decoded by libmpg123 (Debian's libmpg123) into mono
/// floats: the library mixes the channels and writes 32-bit floats; input is fed 64 KiB at a time, so
/// it holds no copy of the file. Each stream format's rate and channels are judged against the limits as
/// libmpg123 announces it, and the mono samples gather in `BoundedSamples`, so decoding stops at the limit.
enum MPEGFileDecoder {
    /// Bytes handed to the decoder per call, and the size of its output buffer.
    private static let blockBytes = 65_536

    static func decode(
        _ bytes: UnsafeRawBufferPointer, path: String, limits: AudioInputLimits
    ) throws -> (samples: [Float], sampleRate: Int) {
        func damaged(_ reason: String) -> AudioCodecError { .damaged(path: path, format: .mpeg, reason: reason) }
        func message(_ code: Int32) -> String { String(cString: mpg123_plain_strerror(code)) }

        var code: Int32 = 0
        guard let handle = mpg123_new(nil, &code) else { throw damaged("libmpg123 could not start: \(message(code))") }
        defer { mpg123_delete(handle) }
        let flags = MPG123_MONO_MIX.rawValue | MPG123_FORCE_FLOAT.rawValue | MPG123_QUIET.rawValue
        guard mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), Int(flags), 0) == MPG123_OK.rawValue,
              mpg123_open_feed(handle) == MPG123_OK.rawValue
        else { throw damaged("libmpg123 refused mono float output: \(message(mpg123_errcode(handle)))") }

        var samples = BoundedSamples(bound: 0)
        var sampleRate = 0, channels = 1
        var output = [Float](repeating: 0, count: blockBytes / 4)
        var offset = 0
        decoding: while true {
            var input = offset < bytes.count ? bytes.baseAddress! + offset : nil
            var inputCount = min(blockBytes, bytes.count - offset)
            offset += inputCount
            var status: Int32
            repeat {
                var done = 0
                status = output.withUnsafeMutableBytes {
                    mpg123_decode(handle, input?.assumingMemoryBound(to: UInt8.self), inputCount,
                                  $0.baseAddress, $0.count, &done)
                }
                input = nil
                inputCount = 0
                if status == MPG123_NEW_FORMAT.rawValue {
                    var rate = 0
                    var channelCount: Int32 = 0, encoding: Int32 = 0
                    mpg123_getformat(handle, &rate, &channelCount, &encoding)
                    guard encoding == MPG123_ENC_FLOAT_32.rawValue else {
                        throw damaged("libmpg123 gave encoding \(encoding), not 32-bit float")
                    }
                    guard sampleRate == 0 || rate == sampleRate else {
                        throw damaged("a frame at \(rate) Hz in a stream at \(sampleRate) Hz")
                    }
                    try limits.check(sampleRate: rate, channels: Int(channelCount), frames: nil, path: path)
                    if sampleRate == 0 { samples = BoundedSamples(bound: limits.samples(at: rate)) }
                    sampleRate = rate
                    channels = max(1, Int(channelCount))
                }
                if done > 0 {
                    let frames = done / (4 * channels)
                    guard samples.makeRoom(for: frames) else {
                        throw AudioFileError.tooLong(path: path, seconds: nil, limit: limits.seconds(at: sampleRate))
                    }
                    output.withUnsafeBufferPointer { floats in
                        for frame in 0..<frames {
                            var sum: Float = 0
                            for channel in 0..<channels { sum += floats[frame * channels + channel] }
                            samples.append(sum / Float(channels))
                        }
                    }
                }
            } while status == MPG123_OK.rawValue || status == MPG123_NEW_FORMAT.rawValue
            switch status {
            case MPG123_NEED_MORE.rawValue where offset < bytes.count:
                continue decoding
            case MPG123_NEED_MORE.rawValue, MPG123_DONE.rawValue:
                break decoding
            default:
                throw damaged(message(mpg123_errcode(handle)))
            }
        }
        guard !samples.samples.isEmpty else { throw AudioCodecError.noAudio(path: path, format: .mpeg) }
        return (samples.samples, sampleRate)
    }
}
