import ChorusAudio
import Foundation

/// Writes the stream to a file handle (standard output by default) as it is produced: raw
/// little-endian PCM, or a WAV stream whose header gives the unknown length as the largest size,
/// as players reading from a pipe expect.
public final class PCMStreamSink: AudioSink {
    /// What goes out before the samples.
    public enum Container: Sendable, Equatable {
        /// Samples only.
        case raw
        /// A WAV header with open-ended sizes, then the samples.
        case wav
    }

    public let name: String
    public let sampleFormat: WAVSampleFormat
    public let container: Container
    private let handle: FileHandle
    private let rate: Int?

    /// - Parameter sampleRate: the rate to write at; nil keeps the provider's.
    public init(
        handle: FileHandle = .standardOutput, name: String = "standard output",
        container: Container = .raw, sampleFormat: WAVSampleFormat = .pcm16, sampleRate: Int? = nil
    ) {
        self.handle = handle
        self.name = name
        self.container = container
        self.sampleFormat = sampleFormat
        self.rate = sampleRate
    }

    public func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        let format = SinkFormat(sampleRate: rate ?? source.sampleRate, channels: source.channels)
        if container == .wav {
            let header = try WAVWriter.header(
                sampleRate: format.sampleRate, channels: format.channels, format: sampleFormat, dataBytes: Int(UInt32.max))
            try write(header)
        }
        return format
    }

    public func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        try write(Data(WAVWriter.encodeSamples(samples, format: sampleFormat)))
        onPlayed()
    }

    public func play() async throws {}

    /// Nothing to flush: every piece was written through when it was scheduled.
    public func finish() async throws {}

    public func stop() async {}

    private func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw AudioSinkError.writeFailed(sink: name, reason: AudioFileError.reason(for: error))
        }
    }
}
