/// Where a stream's playback stands; durations are seconds of audio.
public enum PlaybackStatus: Sendable, Equatable {
    /// Not started.
    case idle
    /// Gathering audio up to the watermark before playing.
    case buffering(scheduled: Double)
    /// Playing; `buffered` is scheduled audio not yet played.
    case playing(played: Double, buffered: Double)
    /// Everything was played.
    case finished(played: Double)
    /// Stopped by an error, described here.
    case failed(String)
    /// Stopped by `cancel()`.
    case cancelled

    /// Whether the stream has ended, one way or another.
    public var isTerminal: Bool {
        switch self {
        case .finished, .failed, .cancelled: true
        case .idle, .buffering, .playing: false
        }
    }
}
