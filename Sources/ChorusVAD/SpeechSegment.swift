/// One stretch of speech in an audio buffer, as sample offsets at the buffer's rate.
public struct SpeechSegment: Hashable, Sendable, CustomStringConvertible {
    /// First sample of the segment.
    public var start: Int
    /// One past the last sample of the segment.
    public var end: Int
    /// The rate the offsets count in, in hertz.
    public var sampleRate: Int

    public init(start: Int, end: Int, sampleRate: Int) {
        self.start = start
        self.end = end
        self.sampleRate = sampleRate
    }

    /// The start in seconds.
    public var startTime: Double { Double(start) / Double(sampleRate) }
    /// The end in seconds.
    public var endTime: Double { Double(end) / Double(sampleRate) }
    /// The length in seconds.
    public var duration: Double { endTime - startTime }
    /// The sample range, for slicing the buffer the segment came from.
    public var samples: Range<Int> { start..<end }

    public var description: String {
        func seconds(_ value: Double) -> String {
            let milliseconds = Int((value * 1000).rounded())
            let fraction = String(milliseconds % 1000)
            return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        }
        return "\(seconds(startTime))-\(seconds(endTime)) s"
    }
}
