/// The fixed input lengths of a recogniser's entry points, in feature frames, and how an utterance fits them.
///
/// Fixed-shape exports (one entry point per length, as accelerators that precompile kernels need)
/// take input padded up to the smallest bucket that holds it; their output is then cut back to the
/// frames that saw real input, `ceil(frames / subsampling)`.
public struct LengthBuckets: Sendable, Equatable {
    /// Bucket lengths in feature frames, ascending.
    public let frames: [Int]
    /// Input frames per output frame (8 for FastConformer).
    public let subsampling: Int

    /// The seed export's buckets: 0.8, 2, 4, 8, 16, 24 and 48 s at 100 frames per second.
    static let fastConformer = LengthBuckets(frames: [80, 200, 400, 800, 1600, 2400, 4800], subsampling: 8)

    public init(frames: [Int], subsampling: Int) {
        self.frames = Array(Set(frames)).sorted()
        self.subsampling = subsampling
    }

    /// The longest input one call accepts.
    public var largest: Int { frames.last ?? 0 }

    /// The smallest bucket that holds `frames`, or `nil` when even the largest is too short.
    public func bucket(for frames: Int) -> Int? {
        self.frames.first { $0 >= frames }
    }

    /// Output frames that carry real input when `frames` valid frames are padded to any bucket.
    func validOutputFrames(for frames: Int) -> Int {
        (frames + subsampling - 1) / subsampling
    }
}
