import ChorusFiles
import ChorusSpeech
import ChorusStreaming

/// A synthesizer with no model, for tests of code that drives one: each request gives a deterministic
/// ramp (10 ms per character, distinct enough to catch reordering) in two chunks, and is logged.
public struct FakeSynthesizer: SpeechSynthesizer {
    public let engineName: String
    public let sampleRate: Int
    public let voices: [Voice]
    /// A request with exactly this text fails with `FakeError.boom` (nil: none fails).
    public var failingText: String?
    /// What the fake says it runs at once, so callers that join sentences for such an engine
    /// (`SynthesizerProvider`) can be tested; the fake itself makes each request's audio at once.
    public var piecesInFlight: Int
    private let log = Locked<[String]>([])

    /// A fake named `engineName` at `sampleRate`, with one voice, "plain".
    public init(engineName: String = "fake", sampleRate: Int = 16_000, failingText: String? = nil, piecesInFlight: Int = 1) {
        self.engineName = engineName
        self.sampleRate = sampleRate
        self.failingText = failingText
        self.piecesInFlight = piecesInFlight
        voices = [Voice(id: "plain", engine: engineName, language: "en-US", gender: .unknown)]
    }

    /// The texts of the requests made so far, in order.
    public var requests: [String] { log.withLock { $0 } }

    public func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let log = log, failing = failingText, rate = sampleRate
        return AsyncThrowingStream { continuation in
            let task = Task {
                log.withLock { $0.append(request.text) }
                if request.text == failing {
                    continuation.finish(throwing: FakeError.boom)
                    return
                }
                let samples = Self.samples(for: request.text)
                let half = samples.count / 2
                continuation.yield(AudioChunk(samples: Array(samples[..<half]), sampleRate: rate, text: request.text))
                continuation.yield(AudioChunk(samples: Array(samples[half...]), sampleRate: rate, text: request.text))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The samples a request with `text` gives.
    public static func samples(for text: String) -> [Float] {
        (0..<160 * text.count).map { Float(($0 * 7 + text.count) % 200 - 100) / 128 }
    }
}

/// The error the fakes throw when told to fail.
public enum FakeError: Error, Equatable, Sendable {
    case boom
}
