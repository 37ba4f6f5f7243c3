import ChorusFiles
import ChorusModels
import ChorusAudio
import ChorusEngines
import ChorusSpeech
@testable import ChorusServer
import ChorusStreaming
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A synthesizer that says the first half of a request's audio at once, then holds the rest until
/// `open()` is called, and records whether it was cancelled while holding it.
final class GatedSynthesizer: SpeechSynthesizer {
    let engineName: String
    let sampleRate: Int
    let voices: [Voice]
    /// Fails after the first half instead of giving the second.
    let failsMidway: Bool
    private let state = Locked((open: false, started: 0, cancelled: 0, finished: 0))

    init(engineName: String = "gated", sampleRate: Int = 24_000, failsMidway: Bool = false) {
        self.engineName = engineName
        self.sampleRate = sampleRate
        self.failsMidway = failsMidway
        voices = [Voice(id: "held", engine: engineName, language: "en-US", gender: .female)]
    }

    func open() { state.withLock { $0.open = true } }
    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var finished: Int { state.withLock { $0.finished } }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let state = state, rate = sampleRate, failsMidway = failsMidway
        return AsyncThrowingStream { continuation in
            let task = Task {
                let samples = FakeSynthesizer.samples(for: request.text)
                let half = samples.count / 2
                continuation.yield(AudioChunk(samples: Array(samples[..<half]), sampleRate: rate))
                state.withLock { $0.started += 1 }
                do {
                    while !state.withLock({ $0.open }) { try await Task.sleep(for: .milliseconds(2)) }
                } catch {
                    state.withLock { $0.cancelled += 1 }
                    continuation.finish(throwing: error)
                    return
                }
                if failsMidway {
                    continuation.finish(throwing: FakeError.boom)
                    return
                }
                continuation.yield(AudioChunk(samples: Array(samples[half...]), sampleRate: rate))
                state.withLock { $0.finished += 1 }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Waits until `condition` holds, polling; fails the test after `seconds`: a deadline for a hang, not a timing
/// check, and long because the whole suite shares two cores.
func eventually(_ what: String, within seconds: Double = 300, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("gave up waiting: \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A server over fakes: "fake" (24 kHz), "fake22" (22.05 kHz), and any extra engines.
func fakeServer(_ configuration: ServerConfiguration = ServerConfiguration(port: 0),
                extra: [Engine] = []) -> SpeechServer {
    let fake = FakeSynthesizer(engineName: "fake", sampleRate: 24_000, failingText: "Fail here.")
    let fake22 = FakeSynthesizer(engineName: "fake22", sampleRate: 22_050)
    return SpeechServer(configuration: configuration, engines: [
        testEngine("fake", name: "Fake", sampleRate: 24_000) { fake },
        testEngine("fake22", name: "Fake 22 kHz", sampleRate: 22_050) { fake22 },
    ] + extra)
}

func served(_ synthesizer: any SpeechSynthesizer) -> Engine {
    testEngine(synthesizer.engineName, sampleRate: synthesizer.sampleRate) { synthesizer }
}

/// An engine with no model files: `load` makes its synthesizer, `installedVoices` says what is on disk (by
/// default the voices a synthesizer `load` makes has, and `load`'s error when it fails).
func testEngine(_ id: String, name: String? = nil, sampleRate: Int = 24_000, cloning: Engine.Cloning? = nil,
                installedVoices: (@Sendable () throws -> [Voice])? = nil,
                load: @escaping @Sendable () throws -> any SpeechSynthesizer) -> Engine {
    let installedVoices = installedVoices ?? { try load().voices }
    let manifest = ModelManifest(id: id, name: name ?? id, files: [], source: "the tests", licence: "none",
                                 installation: .manual("It is made by the tests."))
    return Engine(id: id, name: name ?? id, sampleRate: sampleRate, capabilities: [.streaming], cloning: cloning,
                  models: [ModelCatalog.Entry(name: id, manifest: manifest)], modelDescription: "nothing",
                  defaultModel: { URL(fileURLWithPath: "/nonexistent/\(id)") },
                  installedVoices: { _ in try installedVoices() }, load: { _ in try load() })
}

/// A JSON body from a dictionary.
func jsonBody(_ fields: [String: Any]) -> ByteBuffer {
    ByteBuffer(data: try! JSONSerialization.data(withJSONObject: fields))
}

/// The OpenAI-style error in a response body.
struct ErrorBody: Decodable, Equatable {
    struct Detail: Decodable, Equatable {
        var message: String
        var type: String
        var param: String?
        var code: String?
    }
    var error: Detail

    init(_ buffer: ByteBuffer) throws {
        self = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: buffer))
    }
}

/// 16-bit little-endian bytes of `samples`.
func pcm16(_ samples: [Float]) -> Data {
    Data(WAVWriter.encodeSamples(samples, format: .pcm16))
}

let speechJSON: HTTPFields = [.contentType: "application/json"]
