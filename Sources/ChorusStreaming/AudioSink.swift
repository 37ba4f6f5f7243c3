/// Where the pipeline's audio goes: a sound device, a file, a pipe, or a clock.
///
/// The pipeline calls `open`, then `schedule` for each piece (and `play` once its watermark is
/// reached), then either `finish` after every piece was reported played, or `stop` to abandon the
/// stream. `schedule` must not wait for playback: the pipeline does its own backpressure from the
/// `onPlayed` reports.
public protocol AudioSink: AnyObject, Sendable {
    /// Names the sink in messages ("ALSA device default", "WAV file out.wav").
    var name: String { get }
    /// Prepares for audio in `source` format; returns the rate and channels the sink will be fed.
    /// Throws `AudioSinkError.deviceUnavailable` when there is no device to play on.
    func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat
    /// Queues interleaved frames; `onPlayed` is called once, from any thread, when they have been consumed.
    func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws
    /// Starts consuming the queue; pieces scheduled afterwards play as soon as they arrive.
    func play() async throws
    /// Ends a stream whose audio has all been played: flushes and releases the device or file.
    func finish() async throws
    /// Abandons the stream at once: drops what is queued and releases everything. Safe to call twice.
    func stop() async
}

/// Errors of the audio sinks, worded for the user.
public enum AudioSinkError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The sound device could not be opened; `suggestion` names a sink that works without one.
    case deviceUnavailable(device: String, reason: String, suggestion: String)
    /// The device failed while playing.
    case deviceFailed(device: String, reason: String)
    /// The output file could not be created.
    case cannotCreate(path: String, reason: String)
    /// Writing to a file or pipe failed.
    case writeFailed(sink: String, reason: String)
    /// The sink was used before `open` or after it was closed.
    case notOpen(sink: String)

    /// What to say when no sound device is around.
    public static let noDeviceSuggestion =
        "Write to a file instead (chorus speak --stream -o out.wav) or to stdout (-o - --format pcm)."

    public var description: String {
        switch self {
        case .deviceUnavailable(let device, let reason, let suggestion):
            "No sound device: cannot open \(device) (\(reason)). \(suggestion)"
        case .deviceFailed(let device, let reason):
            "The sound device \(device) failed while playing: \(reason)."
        case .cannotCreate(let path, let reason):
            "Cannot create \(path): \(reason). Check that the folder exists and is writable."
        case .writeFailed(let sink, let reason):
            "Writing to \(sink) failed: \(reason)."
        case .notOpen(let sink):
            "The \(sink) sink is not open; the pipeline opens it before scheduling audio."
        }
    }
}
