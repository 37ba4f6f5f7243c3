import ChorusAudio
import ChorusModels
import Foundation

/// Writes the stream to a WAV file as it is produced, as fast as it comes.
///
/// The data goes to a hidden temporary file beside the target; `finish` fixes the header's sizes
/// and renames it into place, so a reader never sees a half-written file under the final name.
/// A stopped stream leaves no file.
public final class WAVFileSink: AudioSink {
    public let url: URL
    public let sampleFormat: WAVSampleFormat
    public var name: String { "WAV file \(url.path)" }
    private let rate: Int?
    private let policy: OutputTarget.Policy
    private let state = Locked(State())

    private struct State {
        var handle: FileHandle?
        var staged: StagedFile?
        var format: SinkFormat?
        var dataBytes = 0
    }

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
        let header = try WAVWriter.header(
            sampleRate: format.sampleRate, channels: format.channels, format: sampleFormat, dataBytes: 0)
        let staged = try StagedFile(destination: url, policy: policy)
        do {
            let handle = try staged.create(contents: header)
            state.withLock { $0 = State(handle: handle, staged: staged, format: format) }
        } catch {
            staged.discard()
            throw AudioSinkError.cannotCreate(path: url.path, reason: AudioFileError.creationReason(for: error))
        }
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        let bytes = Data(WAVWriter.encodeSamples(samples, format: sampleFormat))
        try state.withLock { state in
            guard let handle = state.handle else { throw AudioSinkError.notOpen(sink: name) }
            do {
                try handle.write(contentsOf: bytes)
            } catch {
                throw AudioSinkError.writeFailed(sink: name, reason: AudioFileError.reason(for: error))
            }
            state.dataBytes += bytes.count
        }
        onPlayed()
    }

    public func play() async throws {}

    public func finish() async throws {
        let closing = state.withLock { state in
            defer { state = State() }
            return state
        }
        guard let handle = closing.handle, let staged = closing.staged, let format = closing.format else { return }
        do {
            let header = try WAVWriter.header(
                sampleRate: format.sampleRate, channels: format.channels, format: sampleFormat, dataBytes: closing.dataBytes)
            // A pipe cannot seek back; its header keeps the sizes it started with.
            if lseek(handle.fileDescriptor, 0, SEEK_SET) == 0 { try handle.write(contentsOf: header) }
            try handle.close()
            try staged.commit()
        } catch {
            staged.discard()
            throw AudioSinkError.writeFailed(sink: name, reason: AudioFileError.reason(for: error))
        }
    }

    public func stop() async {
        let closing = state.withLock { state in
            defer { state = State() }
            return state
        }
        try? closing.handle?.close()
        closing.staged?.discard()
    }
}
