/// A CTC head's output for one utterance: log-probabilities over the classes for each output frame,
/// the blank being the last class, cut to the frames that saw real input.
public struct CTCLogProbabilities: Sendable, Equatable {
    /// Output frames.
    public var frames: Int
    /// Classes per frame: the vocabulary plus the blank.
    public var classes: Int
    /// `frames * classes` values, frame after frame.
    public var values: [Float]

    public init(frames: Int, classes: Int, values: [Float]) {
        precondition(values.count == frames * classes, "\(values.count) values for \(frames) x \(classes) log-probabilities")
        self.frames = frames
        self.classes = classes
        self.values = values
    }

    /// The blank's index: the last class, as NeMo's CTC heads put it.
    public var blank: Int { classes - 1 }

    /// Log-probabilities of frame `index`.
    public subscript(frame index: Int) -> ArraySlice<Float> {
        values[(index * classes)..<((index + 1) * classes)]
    }

    /// The most likely class of each frame (the first on ties), before any collapsing.
    public func bestClasses() -> [Int] {
        (0..<frames).map { frame in
            var best = 0
            var bestValue = -Float.infinity
            let base = frame * classes
            for index in 0..<classes where values[base + index] > bestValue {
                best = index
                bestValue = values[base + index]
            }
            return best
        }
    }
}
