import Foundation

/// Re-aligns bytes that arrive in arbitrary pieces to whole frames.
///
/// Networks and providers cut audio anywhere, even inside a sample; this keeps the partial frame
/// until the rest of it arrives, so the decoder only ever sees whole frames.
public struct FrameAccumulator: Sendable {
    /// Bytes per frame of the stream.
    public let bytesPerFrame: Int
    /// The start of a frame whose remaining bytes have not arrived yet; always shorter than a frame.
    public private(set) var pending: [UInt8] = []

    public init(bytesPerFrame: Int) {
        precondition(bytesPerFrame > 0, "a frame has at least one byte")
        self.bytesPerFrame = bytesPerFrame
    }

    /// Adds `bytes` and returns every whole frame now complete, in order (possibly none).
    public mutating func append(_ bytes: Data) -> [UInt8] {
        if pending.isEmpty && bytes.count % bytesPerFrame == 0 { return [UInt8](bytes) }
        var joined = pending
        joined.append(contentsOf: bytes)
        let whole = joined.count - joined.count % bytesPerFrame
        pending = Array(joined[whole...])
        joined.removeLast(joined.count - whole)
        return joined
    }

    /// Ends the stream: returns the bytes of an incomplete last frame, which cannot be played, and forgets them.
    public mutating func finish() -> [UInt8] {
        defer { pending = [] }
        return pending
    }
}
