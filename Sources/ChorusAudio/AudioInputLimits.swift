/// What an audio input may be, judged from its header before a sample is decoded and enforced again while
/// decoding: its rate, its channels, and its length in seconds and in mono samples.
///
/// The samples bound is the one that holds memory down whatever a header claims: a decoder keeps at most
/// `maximumSamples` mono floats, so 100 KB of FLAC declaring ten minutes at 768 kHz is refused by its rate,
/// and one declaring a second but holding an hour stops at the bound. It is `maximumSeconds` at 48 kHz,
/// so a file above 48 kHz may be that much shorter (10 minutes at 48 kHz, 2.5 at 192 kHz).
public struct AudioInputLimits: Sendable, Equatable {
    /// The longest audio taken, in seconds (infinite for a stream read as it arrives).
    public var maximumSeconds: Double
    /// The rates taken: a real recording's, telephone to studio.
    public var sampleRates: ClosedRange<Int>
    /// The most channels taken (FLAC's own limit).
    public var maximumChannels: Int
    /// The most mono samples a decoder holds at once: the hard bound on its memory (4 bytes a sample).
    public var maximumSamples: Int

    /// Rates from telephone speech to a studio recording.
    public static let recordedRates = 8_000...192_000
    /// The rate at which `maximumSeconds` fills `maximumSamples`.
    public static let boundRate = 48_000

    /// Limits of `maximumSeconds` at up to 48 kHz, `sampleRates` and `maximumChannels`.
    public init(maximumSeconds: Double, sampleRates: ClosedRange<Int> = recordedRates, maximumChannels: Int = 8) {
        self.maximumSeconds = maximumSeconds
        self.sampleRates = sampleRates
        self.maximumChannels = maximumChannels
        let samples = maximumSeconds * Double(Self.boundRate)
        self.maximumSamples = samples < Double(Int.max / 2) ? Int(samples) : Int.max / 2
    }

    /// What a whole file is read under by default: ten minutes, far beyond a voice clip or a dictation.
    public static let file = AudioInputLimits(maximumSeconds: 600)
    /// A stream read block by block as it arrives (live transcription): no length, but its rate and channels.
    public static let stream = AudioInputLimits(maximumSeconds: .infinity)

    /// The mono samples taken at `rate`: `maximumSeconds` of them, never past `maximumSamples`.
    public func samples(at rate: Int) -> Int {
        let seconds = maximumSeconds * Double(rate)
        return seconds < Double(maximumSamples) ? Int(seconds) : maximumSamples
    }

    /// The seconds taken at `rate` (fewer than `maximumSeconds` above 48 kHz).
    public func seconds(at rate: Int) -> Double {
        min(maximumSeconds, Double(maximumSamples) / Double(max(rate, 1)))
    }

    /// Throws the `AudioFileError` naming the limit when a header's rate, channels or declared frames
    /// (nil when it states none) fall outside these limits.
    public func check(sampleRate: Int, channels: Int, frames: Int?, path: String) throws {
        guard sampleRates.contains(sampleRate) else {
            throw AudioFileError.sampleRateOutside(path: path, rate: sampleRate, accepted: sampleRates)
        }
        guard (1...maximumChannels).contains(channels) else {
            throw AudioFileError.tooManyChannels(path: path, channels: channels, limit: maximumChannels)
        }
        if let frames, frames > samples(at: sampleRate) {
            throw AudioFileError.tooLong(path: path, seconds: Double(frames) / Double(sampleRate),
                                         limit: seconds(at: sampleRate))
        }
    }
}

/// Mono samples a decoder gathers, never more than `bound` of them and never more memory than that: it grows
/// by doubling up to the bound, not past it, and `makeRoom` refuses what would cross it.
public struct BoundedSamples: Sendable {
    /// The samples so far.
    public private(set) var samples: [Float] = []
    /// The most samples held.
    public let bound: Int

    /// An empty buffer of at most `bound` samples, `expected` of them (a header's count) reserved at once.
    public init(bound: Int, expected: Int? = nil) {
        self.bound = max(0, bound)
        if let expected, expected > 0 { samples.reserveCapacity(min(expected, self.bound)) }
    }

    /// Samples the buffer's memory holds room for.
    public var capacity: Int { samples.capacity }

    /// Makes room for `count` more samples; false (nothing reserved) when they would pass the bound.
    public mutating func makeRoom(for count: Int) -> Bool {
        let needed = samples.count + count
        guard needed <= bound else { return false }
        if needed > samples.capacity {
            samples.reserveCapacity(min(bound, max(needed, samples.capacity * 2)))
        }
        return true
    }

    /// Appends one sample after `makeRoom` made room for it.
    @inline(__always)
    public mutating func append(_ sample: Float) { samples.append(sample) }

    /// Appends `block` when it fits under the bound; false (nothing appended) when it would pass it.
    public mutating func append(contentsOf block: [Float]) -> Bool {
        guard makeRoom(for: block.count) else { return false }
        samples.append(contentsOf: block)
        return true
    }
}
