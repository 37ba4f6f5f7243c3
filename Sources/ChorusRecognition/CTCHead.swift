import Foundation
import ChorusONNX

/// One CTC output of a recogniser: features in, log-probabilities per output frame out, blank last.
/// Features and log-probabilities may be float32 or float16 (half-precision exports); they are
/// converted at the model's edge.
///
/// A head is either one model with a free input length, or one fixed-shape model per length bucket
/// (`name_T80.onnx`, `name_T200.onnx`, ...), as exports for accelerators that precompile their kernels
/// ship. Bucket sessions load on first use; each is checked against the length in its name then.
public struct CTCHead: Sendable {
    /// How the head's model files cover input lengths.
    public enum Layout: Sendable, Equatable {
        /// One file per bucket, by bucket length in frames.
        case buckets([Int: String])
        /// One file that takes any length.
        case dynamic(String)
    }

    /// The model files and the lengths they take.
    public let layout: Layout
    /// Input frames per output frame.
    public let subsampling: Int
    /// Options every session of this head is made with.
    public let options: SessionOptions
    private let cache: SessionCache

    /// A head over the files of `layout`; sessions load through `cache` on first use.
    public init(layout: Layout, subsampling: Int = 8, options: SessionOptions = SessionOptions(),
                cache: SessionCache = SessionCache()) {
        self.layout = layout
        self.subsampling = subsampling
        self.options = options
        self.cache = cache
    }

    /// The head whose files in `folder` are named `stem.onnx` (dynamic) or `stem_T<frames>.onnx` (buckets);
    /// `nil` when there are none.
    public static func find(stem: String, in folder: URL, subsampling: Int = 8, options: SessionOptions = SessionOptions(),
                            cache: SessionCache = SessionCache()) -> CTCHead? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var buckets: [Int: String] = [:]
        for name in names where name.hasPrefix(stem + "_T") && name.hasSuffix(".onnx") {
            let digits = name.dropFirst(stem.count + 2).dropLast(5)
            if let frames = Int(digits), frames > 0 { buckets[frames] = folder.appendingPathComponent(name).path }
        }
        if !buckets.isEmpty {
            return CTCHead(layout: .buckets(buckets), subsampling: subsampling, options: options, cache: cache)
        }
        if names.contains(stem + ".onnx") {
            return CTCHead(layout: .dynamic(folder.appendingPathComponent(stem + ".onnx").path),
                           subsampling: subsampling, options: options, cache: cache)
        }
        return nil
    }

    /// The buckets, or `nil` for a head that takes any length.
    public var buckets: LengthBuckets? {
        guard case .buckets(let files) = layout else { return nil }
        return LengthBuckets(frames: Array(files.keys), subsampling: subsampling)
    }

    /// The longest input one call takes, in frames; `nil` when unbounded.
    public var maximumFrames: Int? { buckets?.largest }

    /// Every model file of the head.
    public var modelPaths: [String] {
        switch layout {
        case .buckets(let files): files.sorted { $0.key < $1.key }.map(\.value)
        case .dynamic(let path): [path]
        }
    }

    /// The file that runs `frames` of features: the smallest bucket that holds them, or the one dynamic
    /// file; `nil` when they are longer than the largest bucket.
    public func modelPath(for frames: Int) -> String? {
        switch layout {
        case .dynamic(let file): return file
        case .buckets(let files): return LengthBuckets(frames: Array(files.keys), subsampling: subsampling).bucket(for: frames).flatMap { files[$0] }
        }
    }

    /// Log-probabilities for `features`, cut to `ceil(frames / subsampling)` output frames.
    ///
    /// Bucketed heads run the smallest bucket that holds the features, padded with zeros.
    public func logProbabilities(for features: AcousticFeatures) async throws -> CTCLogProbabilities {
        let path: String
        let length: Int
        switch layout {
        case .dynamic(let file):
            path = file
            length = features.frames
        case .buckets(let files):
            let buckets = LengthBuckets(frames: Array(files.keys), subsampling: subsampling)
            guard let bucket = buckets.bucket(for: features.frames) else {
                throw RecognitionError.inputTooLong(frames: features.frames, largestBucket: buckets.largest)
            }
            path = files[bucket]!
            length = bucket
        }
        let session = try await cache.session(for: path, options: options)
        let interface = try Interface(session: session)
        if case .buckets = layout, let declared = interface.features.shape[2].size, declared != length {
            throw RecognitionError.bucketMismatch(path: path, named: length, declared: String(declared))
        }
        if let channels = interface.features.shape[1].size, channels != features.channels {
            throw RecognitionError.featureChannelMismatch(path: path, expected: channels, actual: features.channels)
        }

        let input = features.padded(to: length)
        let shape = [1, input.channels, length]
        // Half-precision exports (as for accelerators that run natively in float16) take float16 features;
        // normalised features are a few units at most, far inside float16's range.
        var feeds = [interface.features.name: try Tensor.floats(
            input.values, shape: shape, as: interface.features.elementType == .float16 ? .float16 : .float32)]
        if let lengthInput = interface.length {
            feeds[lengthInput.name] = lengthInput.elementType == .int32
                ? try Tensor([Int32(features.frames)], shape: [1])
                : try Tensor([Int64(features.frames)], shape: [1])
        }
        guard let output = try await session.run(feeds, outputs: [interface.output])[interface.output],
              output.shape.count == 3, output.shape[0] == 1
        else { throw RecognitionError.unexpectedModel(path: path, reason: "its output is not [1, frames, classes]") }
        let (frames, classes) = (output.shape[1], output.shape[2])
        let valid = min(frames, (features.frames + subsampling - 1) / subsampling)
        let values = try output.floats()
        return CTCLogProbabilities(frames: valid, classes: classes, values: Array(values.prefix(valid * classes)))
    }

    /// Which inputs and output of a session carry the features, the valid length and the log-probabilities.
    struct Interface {
        var features: ValueInfo
        var length: ValueInfo?
        var output: String

        /// Feature and log-probability element types a head may use; values are converted to and from Float.
        static let floatTypes: [TensorElementType] = [.float32, .float16]

        init(session: InferenceSession) throws {
            let path = session.modelPath
            let threeDimensional = session.inputs.filter { $0.shape.count == 3 }
            guard let features = threeDimensional.first(where: { $0.elementType.map(Self.floatTypes.contains) ?? false }) else {
                if let other = threeDimensional.first {
                    throw RecognitionError.unexpectedModel(path: path, reason: """
                        its features input '\(other.name)' is \(other.elementType?.description ?? "not a tensor"); \
                        Chorus feeds float32 or float16 features, so re-export the model with one of those
                        """)
                }
                throw RecognitionError.unexpectedModel(
                    path: path, reason: "it has no features input of shape [1, channels, frames]; its inputs are "
                        + session.inputs.map(\.description).joined(separator: ", "))
            }
            let length = session.inputs.first { [.int64, .int32].contains($0.elementType) && $0.shape.count == 1 }
            let others = session.inputs.filter { $0.name != features.name && $0.name != length?.name }
            guard others.isEmpty else {
                throw RecognitionError.unexpectedModel(
                    path: path, reason: "unexpected inputs \(others.map(\.name).joined(separator: ", "))")
            }
            let candidates = session.outputs.filter { ($0.elementType.map(Self.floatTypes.contains) ?? false) && $0.shape.count == 3 }
            guard let output = candidates.first(where: { $0.name == "logprobs" }) ?? candidates.first else {
                throw RecognitionError.unexpectedModel(
                    path: path, reason: "it has no float32 or float16 output of shape [1, frames, classes]; its outputs are "
                        + session.outputs.map(\.description).joined(separator: ", "))
            }
            self.features = features
            self.length = length
            self.output = output.name
        }
    }
}
