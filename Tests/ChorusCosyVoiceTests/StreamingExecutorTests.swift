import Foundation
import ChorusONNX
import ChorusSpeech
import Testing
@testable import ChorusCosyVoice

/// Streaming on the inference executor: the LLM job beside the decode jobs, never waiting on one another.
@Suite struct StreamingExecutorTests {
    /// A stand-in LLM that draws token 100 until told to stop, and records how it ended.
    struct EndlessGenerator: SpeechTokenGenerator, Sendable {
        final class Log: @unchecked Sendable {
            private let lock = NSLock()
            private var drawn = 0, ended = false
            var hasEnded: Bool { lock.withLock { ended } }
            var count: Int { lock.withLock { drawn } }
            func draw() { lock.withLock { drawn += 1 } }
            func end() { lock.withLock { ended = true } }
        }

        let log = Log()
        var tokensPerSecond: Int { 25 }

        func generate(_ token: Int, onToken: (Int) throws -> Void) throws -> [Int] {
            defer { log.end() }
            while true {
                usleep(100)
                try onToken(token)
                log.draw()
            }
        }
    }

    func engine(overlapsStages: Bool, executor: InferenceExecutor) throws -> CosyVoiceSynthesizer {
        let golden = try TestResources.goldenCase()
        return try CosyVoiceSynthesizer(
            models: ModelFolder(url: TestResources.models), voicesFolder: TestResources.root,
            tokenizer: ParityTests.GoldenTokenizer(table: [:]),
            configuration: .init(samplingSeed: golden.samplingSeed, noiseSeed: golden.noiseSeed,
                                 overlapsStages: overlapsStages, executor: executor))
    }

    /// With one executor thread the LLM job holds it to its end and the decode jobs follow: the stream
    /// still completes, equal to the reference, instead of a decode job waiting for a thread the LLM never frees.
    @Test(arguments: [true, false]) func streamsOnAOneThreadExecutor(overlapsStages: Bool) async throws {
        let golden = try TestResources.goldenCase()
        let engine = try engine(overlapsStages: overlapsStages, executor: InferenceExecutor(threadCount: 1, name: "test.one"))
        let voice = try VoicePrompt(contentsOf: TestResources.voice)
        var chunks: [[Float]] = []
        let tokens = try await engine.streamSynthesis(promptText: golden.promptTextTokens, text: golden.textTokens,
                                                      voice: voice) { chunks.append($0) }
        #expect(tokens == golden.tokens)
        let reference = try TestResources.floats("stream.f32")
        #expect(chunks.flatMap { $0 }.count == reference.count)
        #expect(maxAbsDifference(chunks.flatMap { $0 }, reference) <= 1e-5)
    }

    /// A chunk callback that throws, and a cancel, each end the LLM's job before the stream returns.
    @Test(arguments: [true, false]) func theGeneratorStopsOnErrorAndOnCancel(overlapsStages: Bool) async throws {
        let engine = try engine(overlapsStages: overlapsStages, executor: InferenceExecutor(threadCount: 2, name: "test.two"))
        let voice = try VoicePrompt(contentsOf: TestResources.voice).aligned()

        struct Stop: Error {}
        let failing = EndlessGenerator()
        await #expect(throws: Stop.self) {
            try await engine.stream(failing, request: 100, voice: voice) { _ in throw Stop() }
        }
        #expect(failing.log.hasEnded)
        #expect(failing.log.count >= 33, "the first chunk's 25 tokens, 5 rounding the prompt up and 3 of lookahead were drawn")

        let cancelled = EndlessGenerator()
        let consumer = Task {
            try await engine.stream(cancelled, request: 100, voice: voice) { _ in
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(cancelled.log.hasEnded)
    }
}
