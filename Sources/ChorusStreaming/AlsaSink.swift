#if canImport(CChorusAlsa)
import CChorusAlsa
import Foundation

/// Plays on a sound device through ALSA (Linux).
///
/// A thread of its own feeds the device, since `snd_pcm_writei` blocks until the device has room;
/// a piece counts as played once the device has taken it. ALSA converts rate and channels itself
/// where the device needs it (`soft_resample`), so the sink takes the provider's format.
///
/// `@unchecked Sendable`: every mutable property is read and written only under `condition`.
public final class AlsaSink: AudioSink, @unchecked Sendable {
    /// The ALSA device name: "default", "plughw:0,0", "null" (discards, for tests).
    public let device: String
    public var name: String { "ALSA device \(device)" }
    private let latency: Duration
    private let condition = NSCondition()
    private var pieces: [Piece] = []
    private var playing = false
    private var ending: Ending?
    private var running = false
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []
    private var failure: AudioSinkError?
    private var pcm: OpaquePointer?

    private struct Piece {
        var samples: [Float]
        var onPlayed: @Sendable () -> Void
    }

    private enum Ending { case drain, drop }

    /// - Parameter latency: how much audio ALSA's own buffer holds; more survives a busier machine.
    public init(device: String = "default", latency: Duration = .milliseconds(100)) {
        self.device = device
        self.latency = latency
    }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        let format = SinkFormat(sampleRate: source.sampleRate, channels: source.channels)
        chorus_alsa_silence_library_errors()
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard opened >= 0, let pcm = handle else {
            throw AudioSinkError.deviceUnavailable(
                device: name, reason: Self.message(opened), suggestion: AudioSinkError.noDeviceSuggestion)
        }
        let microseconds = UInt32(clamping: latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000)
        let configured = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(format.channels), UInt32(format.sampleRate), 1, microseconds)
        guard configured >= 0 else {
            snd_pcm_close(pcm)
            throw AudioSinkError.deviceUnavailable(
                device: name, reason: "it refuses \(format) as Float32: \(Self.message(configured))",
                suggestion: "Try the plug device (plughw:0,0 or default). \(AudioSinkError.noDeviceSuggestion)")
        }
        condition.withLock {
            pieces = []
            playing = false
            ending = nil
            failure = nil
            running = true
            self.pcm = pcm
        }
        let channels = format.channels
        let thread = Thread { [self] in feed(channels: channels) }
        thread.name = "chorus-alsa"
        thread.start()
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        try condition.withLock {
            if let failure { throw failure }
            guard running, ending == nil else { throw AudioSinkError.notOpen(sink: name) }
            pieces.append(Piece(samples: samples, onPlayed: onPlayed))
            condition.signal()
        }
    }

    public func play() async throws {
        condition.withLock {
            playing = true
            condition.signal()
        }
    }

    public func finish() async throws {
        await end(.drain)
        if let failure = condition.withLock({ failure }) { throw failure }
    }

    public func stop() async {
        await end(.drop)
    }

    /// Asks the feeding thread to end and waits until it has closed the device.
    private func end(_ how: Ending) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            condition.lock()
            guard running else {
                condition.unlock()
                waiter.resume()
                return
            }
            if ending != .drop { ending = how }
            if how == .drop { pieces = [] }
            exitWaiters.append(waiter)
            condition.signal()
            condition.unlock()
        }
    }

    /// The feeding thread: writes queued pieces while playing, then drains or drops and closes.
    private func feed(channels: Int) {
        guard let pcm = condition.withLock({ self.pcm }) else { return }
        while let piece = nextPiece() {
            if failure == nil, let error = write(piece.samples, to: pcm, channels: channels) {
                // Report the rest as played so nothing waits on a dead device; the error surfaces on
                // the next `schedule` or on `finish`.
                condition.withLock { failure = error }
            }
            piece.onPlayed()
        }
        let how = condition.withLock { ending }
        if how == .drain && condition.withLock({ failure }) == nil {
            snd_pcm_drain(pcm)
        } else {
            snd_pcm_drop(pcm)
        }
        snd_pcm_close(pcm)
        let waiters = condition.withLock {
            running = false
            self.pcm = nil
            defer { exitWaiters = [] }
            return exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The next piece to write, waiting for one; nil once the stream ends.
    private func nextPiece() -> Piece? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch ending {
            case .drop: return nil
            case .drain: return pieces.isEmpty ? nil : pieces.removeFirst()
            case nil: if playing && !pieces.isEmpty { return pieces.removeFirst() }
            }
            condition.wait()
        }
    }

    /// Writes all of `samples`, recovering from underruns; returns the error that stopped it, if any.
    private func write(_ samples: [Float], to pcm: OpaquePointer, channels: Int) -> AudioSinkError? {
        let frames = samples.count / channels
        var done = 0
        return samples.withUnsafeBufferPointer { buffer -> AudioSinkError? in
            while done < frames {
                if condition.withLock({ ending == .drop }) { return nil }
                let written = snd_pcm_writei(pcm, buffer.baseAddress! + done * channels, snd_pcm_uframes_t(frames - done))
                if written < 0 {
                    // An underrun (the provider was late) or a suspend: recover and go on.
                    let recovered = snd_pcm_recover(pcm, Int32(written), 1)
                    if recovered < 0 { return AudioSinkError.deviceFailed(device: name, reason: Self.message(recovered)) }
                    continue
                }
                done += Int(written)
            }
            return nil
        }
    }

    private static func message(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }
}
#endif
