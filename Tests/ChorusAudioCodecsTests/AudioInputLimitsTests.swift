import ChorusAudio
@testable import ChorusAudioCodecs
import ChorusTesting
import Foundation
import Testing

/// Issue 41, item 1: audio is judged from its header before it is decoded, and decoded under a hard bound in
/// samples, whatever the header says. The files are made byte by byte (`CraftedAudio`), as a hostile upload is.
@Suite struct AudioInputLimitsTests {
    /// The probe's file: 100 KB of constant FLAC frames declaring ten minutes at 768 kHz, which main decoded
    /// whole (460 million samples, 1.8 GB) before any check. Four frames are enough to show it: main returned
    /// their 262,140 samples at 768 kHz.
    @Test func aFLACAtARateNoRouteTakesIsRefusedFromItsHeader() throws {
        for frames in [4, 7_032] {
            let flac = CraftedAudio.constantFLAC(sampleRate: 768_000, declaredFrames: 768_000 * 600, frameCount: frames)
            if frames == 7_032 { #expect(flac.count < 110_000) }
            let error = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(flac, path: "hostile.flac") }
            #expect(error?.description
                    == "hostile.flac is at 768000 Hz; Chorus reads audio at 8000-192000 Hz, so resample it (for example to 48000 Hz).")
        }
    }

    /// A WAV header is judged the same way: main read a WAV at 768 kHz, and 9 channels.
    @Test func aWAVAtARateOrChannelCountNoRouteTakesIsRefusedFromItsHeader() throws {
        let fast = CraftedAudio.wav(sampleRate: 768_000, channels: 1, frames: 16)
        let rate = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(fast, path: "fast.wav") }
        #expect(rate?.description.hasPrefix("fast.wav is at 768000 Hz;") == true, "\(String(describing: rate))")
        let wide = CraftedAudio.wav(sampleRate: 16_000, channels: 9, frames: 16)
        let channels = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(wide, path: "wide.wav") }
        #expect(channels?.description == "wide.wav has 9 channels; Chorus reads at most 8, so mix it down (for example to mono).")
    }

    /// A FLAC that states a length over the limit is refused before a frame is decoded, naming the limit.
    @Test func aFLACStatingALengthOverTheLimitIsRefusedFromItsHeader() throws {
        let flac = CraftedAudio.constantFLAC(sampleRate: 48_000, declaredFrames: 48_000 * 30, frameCount: 2)
        let error = #expect(throws: AudioFileError.self) { try AudioFileReader.decodeMono(flac, path: "long.flac", maximumSeconds: 10) }
        #expect(error?.description == "long.flac holds 30 s of audio; Chorus reads at most 10 s from one file, so cut it shorter.")
    }

    /// A FLAC whose header says one second but whose frames run on: the decoder stops at the bound, and its
    /// buffer never grows past it (main's doubled: 48,000 samples reserved, then 96,000, then 192,000, twice the
    /// 96,000 a 2 s limit allows).
    @Test func aFLACUnderstatingItsLengthStopsAtTheBoundWithoutGrowingPastIt() throws {
        let flac = CraftedAudio.constantFLAC(sampleRate: 48_000, declaredFrames: 48_000, blockSize: 4_096, frameCount: 40)
        let limits = AudioInputLimits(maximumSeconds: 2)
        #expect(limits.samples(at: 48_000) == 96_000)
        try flac.withUnsafeBytes { bytes in
            let decoder = FLACFileDecoder(bytes, path: "lying.flac", limits: limits)
            let error = #expect(throws: AudioFileError.self) { try decoder.decode() }
            #expect(error == .tooLong(path: "lying.flac", seconds: nil, limit: 2))
            // 23 whole frames fit (94,208 samples); the buffer holds no more than the bound (a page of slack).
            #expect(decoder.samples.samples.count == 23 * 4_096)
            #expect(decoder.samples.capacity <= 96_000 + 1_024, "\(decoder.samples.capacity)")
        }
        // Within the limit the same frames decode whole, the constant scaled to [-1, 1).
        let short = CraftedAudio.constantFLAC(sampleRate: 48_000, declaredFrames: 0, blockSize: 4_096, frameCount: 5, value: 16_384)
        let decoded = try AudioFileReader.decodeMono(short, path: "short.flac", maximumSeconds: 2)
        #expect(decoded.sampleRate == 48_000 && decoded.samples.count == 5 * 4_096 && decoded.samples.allSatisfy { $0 == 0.5 })
    }

    /// The bound is in samples: 48 kHz fills it in `maximumSeconds`, a higher rate sooner.
    @Test func theBoundIsTheSecondsAt48kHz() {
        let limits = AudioInputLimits(maximumSeconds: 600)
        #expect(limits.maximumSamples == 28_800_000)
        #expect(limits.seconds(at: 16_000) == 600 && limits.seconds(at: 192_000) == 150)
        #expect(AudioInputLimits.stream.samples(at: 16_000) > 1 << 40)
    }

    /// `BoundedSamples` doubles up to its bound and refuses what would pass it.
    @Test func boundedSamplesNeverHoldsMoreThanItsBound() {
        var buffer = BoundedSamples(bound: 10_000)
        var appended = 0
        while buffer.append(contentsOf: [Float](repeating: 1, count: 1_500)) { appended += 1_500 }
        #expect(appended == 9_000 && buffer.samples.count == 9_000)
        #expect(buffer.capacity <= 10_000 + 16, "\(buffer.capacity)")
        #expect(buffer.makeRoom(for: 1_000) && !buffer.makeRoom(for: 1_001))
    }
}
