import Foundation

/// A source of speech: text pieces in as they arrive, PCM bytes out as they are made.
///
/// The bytes are in `outputFormat` and may be cut anywhere, even inside a frame; the pipeline
/// re-aligns them. The returned stream ends when the text stream has ended and all of it is spoken,
/// throws what went wrong, and releases the provider's work (connections, engine tasks) when the
/// consumer stops iterating.
public protocol TTSProvider: Sendable {
    /// The layout of the bytes `stream(text:)` yields.
    var outputFormat: AudioFormat { get }
    /// Speech for `text`, which arrives piece by piece and ends when the caller finishes it.
    func stream(text: AsyncStream<String>) -> AsyncThrowingStream<Data, any Error>
}
