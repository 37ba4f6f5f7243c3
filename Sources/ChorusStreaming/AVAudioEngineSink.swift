#if canImport(AVFoundation)
@preconcurrency import AVFoundation
import ChorusFiles

/// Plays through `AVAudioEngine` (Apple platforms): one player node on the engine's main mixer,
/// which converts the rate to the hardware's.
///
/// With `managesAudioEngine` false in the pipeline configuration the app owns the engine: the sink
/// only attaches its player node, and never starts or stops the engine.
///
/// `@unchecked Sendable`: the AVFoundation objects are used from one pipeline task at a time, and
/// the sink's own state is behind a lock.
public final class AVAudioEngineSink: AudioSink, @unchecked Sendable {
    public let engine: AVAudioEngine
    public let name = "audio engine output"
    private let player = AVAudioPlayerNode()
    private let state = Locked(State())

    private struct State {
        var format: AVAudioFormat?
        var managesEngine = true
    }

    public init(engine: AVAudioEngine = AVAudioEngine()) {
        self.engine = engine
    }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        let format = SinkFormat(sampleRate: source.sampleRate, channels: source.channels)
        guard let playerFormat = AVAudioFormat(
            standardFormatWithSampleRate: Double(format.sampleRate), channels: AVAudioChannelCount(format.channels))
        else {
            throw StreamingError.invalidFormat(source, reason: "AVAudioEngine has no Float32 format for it")
        }
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: playerFormat)
        if configuration.managesAudioEngine {
            engine.prepare()
            do {
                try engine.start()
            } catch {
                engine.detach(player)
                throw AudioSinkError.deviceUnavailable(
                    device: name, reason: error.localizedDescription, suggestion: AudioSinkError.noDeviceSuggestion)
            }
        }
        state.withLock { $0 = State(format: playerFormat, managesEngine: configuration.managesAudioEngine) }
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        guard let format = state.withLock({ $0.format }) else { throw AudioSinkError.notOpen(sink: name) }
        let channels = Int(format.channelCount)
        let frames = samples.count / channels
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)),
              let channelData = buffer.floatChannelData else {
            throw AudioSinkError.deviceFailed(device: name, reason: "could not allocate a buffer of \(frames) frames")
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        // The standard format is deinterleaved: one array per channel.
        for channel in 0..<channels {
            for frame in 0..<frames { channelData[channel][frame] = samples[frame * channels + channel] }
        }
        player.scheduleBuffer(buffer, completionCallbackType: .dataPlayedBack) { _ in onPlayed() }
    }

    public func play() async throws {
        player.play()
    }

    public func finish() async throws {
        release()
    }

    public func stop() async {
        release()
    }

    private func release() {
        let wasOpen = state.withLock { state in
            defer { state = State() }
            return state.format != nil ? state.managesEngine : nil
        }
        guard let managesEngine = wasOpen else { return }
        player.stop()
        engine.disconnectNodeOutput(player)
        engine.detach(player)
        if managesEngine { engine.stop() }
    }
}
#endif
