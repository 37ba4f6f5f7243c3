import Foundation

/// How much audio the pipeline gathers before playing and how far it lets the provider run ahead.
public struct AudioPipelineConfiguration: Sendable, Hashable {
    /// Seconds of audio scheduled before playback starts, so a slow provider does not stutter.
    /// A response shorter than this still plays, in full, once it has ended.
    public var playbackWatermark: TimeInterval
    /// Seconds of audio scheduled but not yet played beyond which the provider is paused.
    public var maxBufferedDuration: TimeInterval
    /// Whether a device sink starts and stops the audio engine itself (`AVAudioEngine` on Apple
    /// platforms) or leaves that to an app that runs its own.
    public var managesAudioEngine: Bool
    /// The longest piece handed to a sink in one call, in seconds; bounds how far the buffer can
    /// overshoot `maxBufferedDuration`.
    public var chunkDuration: TimeInterval = 0.1

    public init(playbackWatermark: TimeInterval = 0.5, maxBufferedDuration: TimeInterval = 3, managesAudioEngine: Bool = true) {
        self.playbackWatermark = playbackWatermark
        self.maxBufferedDuration = maxBufferedDuration
        self.managesAudioEngine = managesAudioEngine
    }
}
