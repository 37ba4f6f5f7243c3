import ChorusFiles
import ChorusStreaming
import Foundation

/// A provider whose service takes text as it arrives and streams signed 16-bit mono PCM back at the
/// configured rate (ElevenLabs, Google): one connection per `stream(text:)`, read only as fast as the stream
/// is read (`AudioHandoff`), its failures told to the user by the provider, which hears how much audio had come.
package protocol StreamedPCMProvider: TTSProvider {
    associatedtype Configuration: Sendable
    var configuration: Configuration { get }
    /// The rate the service sends, as configured.
    var sampleRate: Int { get }
    /// Runs one connection: sends `text` up as it arrives, hands each piece of audio to `audio`.
    static func run(_ configuration: Configuration, text: AsyncStream<String>,
                    audio: @escaping @Sendable (Data) async throws -> Void) async throws
    /// The error `run` threw as the user should see it, `audioBytes` of audio having come before it.
    static func userFacing(_ error: any Error, configuration: Configuration, audioBytes: Int) -> any Error
}

extension StreamedPCMProvider {
    /// Signed 16-bit little-endian mono at the configured rate.
    public var outputFormat: AudioFormat {
        AudioFormat(sampleRate: sampleRate, channels: 1, encoding: .int16)
    }

    /// Reads the service only as fast as the stream is read (see `AudioHandoff`).
    public func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error> {
        let configuration = configuration
        return AudioHandoff.stream { send in
            let received = Locked(0)
            do {
                try await Self.run(configuration, text: text) { audio in
                    received.withLock { $0 += audio.count }
                    try await send(audio)
                }
            } catch {
                throw Self.userFacing(error, configuration: configuration, audioBytes: received.withLock { $0 })
            }
        }
    }
}
