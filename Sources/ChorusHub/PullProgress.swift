import ChorusFiles
import ChorusModels
import Foundation

/// How far a pull has got, shared between the downloads (which add to it) and whoever shows it
/// (which reads `snapshot` as often as it likes).
public final class PullProgress: Sendable {
    /// What the pull has done so far.
    public struct Snapshot: Sendable, Equatable {
        /// Bytes received (or copied), resumed ones included.
        public var received: Int64 = 0
        /// Bytes expected in all, when every file's size is known; nil otherwise.
        public var expected: Int64?
        /// Files finished, and files in all.
        public var filesDone = 0
        public var files = 0
        /// Lines worth telling the user ("kokoro: silero_vad.onnx from the Hugging Face cache").
        public var notes: [String] = []
    }

    private let state = Locked(Snapshot())

    public init() {}

    public var snapshot: Snapshot { state.withLock { $0 } }

    func add(bytes: Int) { state.withLock { $0.received += Int64(bytes) } }
    /// Adds `files` files to the count and `bytes` to the bytes expected (nil: a size is unknown, so no total is shown).
    func expect(files: Int, bytes: Int64?) {
        state.withLock { snapshot in
            let known = snapshot.files == 0 ? Int64(0) : snapshot.expected
            snapshot.files += files
            snapshot.expected = known.flatMap { known in bytes.map { known + $0 } }
        }
    }
    func fileDone() { state.withLock { $0.filesDone += 1 } }
    func note(_ line: String) { state.withLock { $0.notes.append(line) } }
}
