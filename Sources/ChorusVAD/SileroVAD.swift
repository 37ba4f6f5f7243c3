import ChorusModels
import ChorusONNX
import Foundation
import ChorusSpeech

/// The Silero voice activity detector: the speech probability of each short window of audio.
///
/// Each call sees one window (512 samples at 16 kHz, 256 at 8 kHz) preceded by the last
/// 64 (or 32) samples of the window before, and carries the model's recurrent state forward,
/// as the Python package's `OnnxWrapper` does. A value holds one stream's state, so keep one
/// per stream; copies diverge independently.
public struct SileroVAD: Sendable {
    /// Where `scripts/setup.sh` installs the model.
    public static var defaultModelPath: String {
        ModelStore.current.folder(for: manifest).appendingPathComponent("silero_vad.onnx").path
    }

    /// One thread each, as upstream: the model is too small for more threads to pay.
    public static let defaultSessionOptions = SessionOptions(intraOpThreads: 1, interOpThreads: 1)

    /// The rate the audio must be at: 16000 or 8000.
    public let sampleRate: Int
    /// Samples per window: 512 at 16 kHz, 256 at 8 kHz.
    public let windowSize: Int
    /// Samples of the previous window prepended to each: 64 at 16 kHz, 32 at 8 kHz.
    public let contextSize: Int
    /// The loaded model.
    public let session: InferenceSession

    private let rateTensor: Tensor
    private let initialState: Tensor
    private var state: Tensor
    private var context: [Float]

    /// Loads the model at `modelPath` (the installed one when `nil`) for audio at `sampleRate`.
    public init(
        modelPath: String? = nil, sampleRate: Int = 16000,
        options: SessionOptions = SileroVAD.defaultSessionOptions
    ) throws {
        let path = modelPath ?? Self.defaultModelPath
        guard FileManager.default.fileExists(atPath: path) else {
            throw ModelError.missingFile(model: Self.manifest.name, path: path,
                                         remedy: "Run `chorus models pull silero-vad` to install it, or pass the path of a silero_vad.onnx.")
        }
        try self.init(session: InferenceSession(modelPath: path, options: options), sampleRate: sampleRate)
    }

    /// Uses an already loaded Silero session (shared between streams, since state lives here, not in the session).
    public init(session: InferenceSession, sampleRate: Int = 16000) throws {
        guard sampleRate == 16000 || sampleRate == 8000 else { throw VADError.unsupportedSampleRate(sampleRate) }
        for name in ["input", "state", "sr"] where session.input(named: name) == nil {
            throw VADError.unexpectedModel(path: session.modelPath, reason: "it has no input '\(name)'")
        }
        for name in ["output", "stateN"] where session.output(named: name) == nil {
            throw VADError.unexpectedModel(path: session.modelPath, reason: "it has no output '\(name)'")
        }
        self.session = session
        self.sampleRate = sampleRate
        windowSize = sampleRate == 16000 ? 512 : 256
        contextSize = sampleRate == 16000 ? 64 : 32
        rateTensor = try Tensor(scalar: Int64(sampleRate), shape: [])
        initialState = try Tensor([Float](repeating: 0, count: 2 * 128), shape: [2, 1, 128])
        state = initialState
        context = [Float](repeating: 0, count: contextSize)
    }

    /// Forgets the stream: zero state and zero context, as at the start of new audio.
    public mutating func reset() {
        state = initialState
        context = [Float](repeating: 0, count: contextSize)
    }

    /// The speech probability of the next window of exactly `windowSize` samples.
    public mutating func probability(of window: ArraySlice<Float>) throws -> Float {
        guard window.count == windowSize else {
            throw VADError.windowSizeMismatch(expected: windowSize, actual: window.count)
        }
        let contextSize = self.contextSize
        let input = try Tensor(shape: [1, contextSize + windowSize], of: Float.self) { buffer in
            context.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress!, count: contextSize) }
            window.withUnsafeBufferPointer {
                (buffer.baseAddress! + contextSize).update(from: $0.baseAddress!, count: $0.count)
            }
        }
        let outputs = try session.run(["input": input, "state": state, "sr": rateTensor])
        guard let probability = outputs["output"], let next = outputs["stateN"] else {
            throw VADError.unexpectedModel(path: session.modelPath, reason: "a run returned no 'output' or 'stateN'")
        }
        state = next
        context = Array(window.suffix(contextSize))
        return try probability.floats().first ?? 0
    }

    /// The speech probability of the next window of exactly `windowSize` samples.
    public mutating func probability(of window: [Float]) throws -> Float {
        try probability(of: window[...])
    }

    /// Probabilities for every window of `audio` from a fresh state; the last window is padded with zeros.
    public mutating func probabilities(for audio: [Float]) throws -> [Float] {
        reset()
        var result: [Float] = []
        result.reserveCapacity((audio.count + windowSize - 1) / windowSize)
        var padded = [Float](repeating: 0, count: windowSize)
        for start in stride(from: 0, to: audio.count, by: windowSize) {
            let end = min(start + windowSize, audio.count)
            if end - start == windowSize {
                result.append(try probability(of: audio[start..<end]))
            } else {
                for index in padded.indices { padded[index] = start + index < end ? audio[start + index] : 0 }
                result.append(try probability(of: padded[...]))
            }
        }
        return result
    }

    /// Speech segments in `audio` (at `sampleRate`), from a fresh state.
    public mutating func speechSegments(
        in audio: [Float], segmenter: SpeechSegmenter = SpeechSegmenter()
    ) throws -> [SpeechSegment] {
        try segmenter.validate()
        if let bad = audio.firstIndex(where: { !$0.isFinite }) { throw VADError.nonFiniteSample(index: bad) }
        let probabilities = try probabilities(for: audio)
        return segmenter.segments(
            probabilities: probabilities, sampleRate: sampleRate, windowSize: windowSize, audioLength: audio.count)
    }
}
