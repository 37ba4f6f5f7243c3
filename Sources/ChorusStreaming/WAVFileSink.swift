import ChorusAudio
import ChorusFiles
import Foundation

/// Writes the stream to a WAV file as it is produced, as fast as it comes.
///
/// The data goes through a `WAVStreamWriter` to a hidden temporary file beside the target; `finish`
/// fixes the header's sizes and renames it into place, so a reader never sees a half-written file
/// under the final name. A stopped stream leaves no file.
public final class WAVFileSink: AudioSink {
    public let url: URL
    public let sampleFormat: WAVSampleFormat
    public var name: String { "WAV file \(url.path)" }
    private let rate: Int?
    private let policy: OutputTarget.Policy
    private let state = Locked<(writer: WAVStreamWriter, staged: StagedFile)?>(nil)

    /// - Parameters:
    ///   - sampleRate: the rate to write at; nil keeps the provider's.
    ///   - policy: which files the output may not be (the inputs) and whether a read-only one is replaced.
    public init(url: URL, sampleFormat: WAVSampleFormat = .pcm16, sampleRate: Int? = nil,
                policy: OutputTarget.Policy = OutputTarget.Policy()) {
        self.url = url
        self.sampleFormat = sampleFormat
        self.rate = sampleRate
        self.policy = policy
    }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        let format = SinkFormat(sampleRate: rate ?? source.sampleRate, channels: source.channels)
        let staged = try StagedFile(destination: url, policy: policy)
        do {
            let writer = try WAVStreamWriter(staged: staged, sampleRate: format.sampleRate, channels: format.channels,
                                             format: sampleFormat)
            state.withLock { $0 = (writer, staged) }
        } catch {
            staged.discard()
            throw AudioSinkError.cannotCreate(path: url.path, reason: Self.reason(for: error))
        }
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        try state.withLock { state in
            guard let writer = state?.writer else { throw AudioSinkError.notOpen(sink: name) }
            do {
                try writer.write(samples)
            } catch {
                throw AudioSinkError.writeFailed(sink: name, reason: Self.reason(for: error))
            }
        }
        onPlayed()
    }

    public func play() async throws {}

    public func finish() async throws {
        guard let file = takeOpenFile() else { return }
        do {
            try file.writer.close()
            try file.staged.commit()
        } catch {
            file.staged.discard()
            throw AudioSinkError.writeFailed(sink: name, reason: Self.reason(for: error))
        }
    }

    public func stop() async {
        guard let file = takeOpenFile() else { return }
        try? file.writer.close()
        file.staged.discard()
    }

    /// The open writer and its staged file, leaving the sink closed.
    private func takeOpenFile() -> (writer: WAVStreamWriter, staged: StagedFile)? {
        state.withLock { state in
            defer { state = nil }
            return state
        }
    }

    /// The reason inside the writer's error, which names the temporary file rather than this sink's.
    private static func reason(for error: any Error) -> String {
        switch error {
        case AudioFileError.cannotCreate(_, let reason), AudioFileError.writeFailed(_, let reason): reason
        default: AudioFileError.reason(for: error)
        }
    }
}
