import Foundation

/// A session made the first time a call asks for it and then kept: for a graph only some calls use (the
/// encoder that turns a clip into a voice), so loading the engine does not pay for it.
public final class LazySession: @unchecked Sendable {
    /// The model it loads.
    public let modelPath: String
    private let options: SessionOptions
    private let lock = NSLock()
    private var made: InferenceSession?

    public init(modelPath: String, options: SessionOptions = SessionOptions()) {
        self.modelPath = modelPath
        self.options = options
    }

    /// The session, made now if no call made it before; a failed load is tried again by the next call.
    /// Call it on the inference executor: making a session blocks.
    public func session() throws -> InferenceSession {
        try lock.withLock {
            if let made { return made }
            let session = try InferenceSession(modelPath: modelPath, options: options)
            made = session
            return session
        }
    }
}
