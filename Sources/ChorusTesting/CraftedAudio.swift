import Foundation

/// Small audio files whose headers say what a test wants, true or not: what a hostile upload sends to make
/// a decoder allocate for the length its header claims, or decode far past it. Made byte by byte here, so
/// a test needs no encoder and no file on disk, and the same arguments always give the same bytes.
public enum CraftedAudio {
    /// A mono 16-bit native FLAC whose STREAMINFO states `sampleRate` and `declaredFrames` (0: unstated),
    /// followed by `frameCount` frames of `blockSize` samples, each one constant subframe of `value` (about
    /// 12 bytes a frame, whatever `blockSize`: ten minutes at 768 kHz is 7,032 frames, 100 KB).
    public static func constantFLAC(sampleRate: Int, declaredFrames: Int, blockSize: Int = 65_535,
                                    frameCount: Int, value: Int16 = 1_000) -> Data {
        precondition((16...65_535).contains(blockSize) && sampleRate < 1 << 20 && declaredFrames < 1 << 36)
        var data = Data("fLaC".utf8)
        data += [0x80, 0, 0, 34]  // the last metadata block, STREAMINFO, 34 bytes
        data += bigEndian(blockSize, bytes: 2) + bigEndian(blockSize, bytes: 2)
        data += bigEndian(0, bytes: 3) + bigEndian(0, bytes: 3)  // frame sizes unknown
        // 20 bits of rate, 3 of channels - 1, 5 of bits per sample - 1, 36 of total samples.
        let packed = UInt64(sampleRate) << 44 | UInt64(0) << 41 | UInt64(15) << 36 | UInt64(declaredFrames)
        data += (0..<8).reversed().map { UInt8(truncatingIfNeeded: packed >> (8 * UInt64($0))) }
        data += [UInt8](repeating: 0, count: 16)  // MD5 unknown
        for number in 0..<frameCount {
            // Fixed block size; size from the 16 bits after the number; rate from STREAMINFO; mono, 16-bit.
            var frame: [UInt8] = [0xFF, 0xF8, 0x70, 0x08]
            frame += utf8Coded(number)
            frame += bigEndian(blockSize - 1, bytes: 2)
            frame.append(crc8(frame))
            frame += [0x00] + bigEndian(Int(UInt16(bitPattern: value)), bytes: 2)  // a constant subframe
            frame += bigEndian(Int(crc16(frame)), bytes: 2)
            data += frame
        }
        return data
    }

    /// A 16-bit PCM RIFF WAVE of `frames` frames of silence, its header stating `sampleRate` and `channels`.
    public static func wav(sampleRate: Int, channels: Int, frames: Int) -> Data {
        let dataBytes = frames * channels * 2
        var data = Data("RIFF".utf8) + littleEndian(36 + dataBytes, bytes: 4) + Data("WAVEfmt ".utf8)
        data += littleEndian(16, bytes: 4) + littleEndian(1, bytes: 2) + littleEndian(channels, bytes: 2)
        data += littleEndian(sampleRate, bytes: 4) + littleEndian(sampleRate * channels * 2, bytes: 4)
        data += littleEndian(channels * 2, bytes: 2) + littleEndian(16, bytes: 2)
        data += Data("data".utf8) + littleEndian(dataBytes, bytes: 4)
        data += Data(count: dataBytes)
        return data
    }

    private static func bigEndian(_ value: Int, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func littleEndian(_ value: Int, bytes: Int) -> Data {
        Data((0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    /// A frame number as FLAC writes it: UTF-8's variable-length coding of up to 31 bits.
    private static func utf8Coded(_ value: Int) -> [UInt8] {
        if value < 0x80 { return [UInt8(value)] }
        var count = 2
        while value >= 1 << (5 * count + 1) { count += 1 }  // n bytes carry 5n + 1 bits
        let lead = (0xFF << (8 - count)) & 0xFF | value >> (6 * (count - 1))
        return [UInt8(lead)] + (0..<(count - 1)).reversed().map { UInt8(0x80 | (value >> (6 * $0)) & 0x3F) }
    }

    /// CRC-8, polynomial x^8 + x^2 + x + 1, as FLAC frame headers carry it.
    private static func crc8(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
        }
        return crc
    }

    /// CRC-16, polynomial x^16 + x^15 + x^2 + 1, over a whole FLAC frame.
    private static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}
