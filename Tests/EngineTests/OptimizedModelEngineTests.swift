import Foundation
import Testing
import ChorusKokoro
import ChorusONNX
import ChorusPiper
import ChorusSpeech

/// An optimised-model cache in a folder of its own, emptied after the test.
private func withCache<T>(_ body: (OptimizedModelCache) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-optimized-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(OptimizedModelCache(folder: folder))
}

/// The optimised graphs in the cache (each has a note beside it naming its model).
private func entries(_ cache: OptimizedModelCache) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: cache.folder.path)) ?? []).filter { $0.hasSuffix(".onnx") }
}

private let text = "The lamp turned slowly over the water. Sailors saw it from far away."
private let oneAtATime = PieceParallelism(inFlight: 1, threadsPerRun: 1)

/// Kokoro and Piper loaded from the optimised graph in the cache speak sample for sample as when they
/// optimise the model themselves.
@Suite struct OptimizedModelEngineTests {
    @Test func kokoroStandInIsTheSameFromTheCache() async throws {
        try await withCache { cache in
            let files = StandIns.kokoro("kokoro_stand_in.onnx")
            let plain = try KokoroSynthesizer(files: files, parallelism: oneAtATime, optimizedModels: nil)
            let writing = try KokoroSynthesizer(files: files, parallelism: oneAtATime, optimizedModels: cache)
            #expect(entries(cache).count == 1)
            let reading = try KokoroSynthesizer(files: files, parallelism: oneAtATime, optimizedModels: cache)
            let expected = try await plain.synthesize(SynthesisRequest(text: text))
            #expect(try await writing.synthesize(SynthesisRequest(text: text)) == expected)
            #expect(try await reading.synthesize(SynthesisRequest(text: text)) == expected)
        }
    }
}

@Suite(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
struct RealKokoroOptimizedModelTests {
    @Test func realKokoroIsBitExactFromTheCache() async throws {
        try await withCache { cache in
            let plain = try KokoroSynthesizer(parallelism: oneAtATime, optimizedModels: nil)
            _ = try KokoroSynthesizer(parallelism: oneAtATime, optimizedModels: cache)
            #expect(entries(cache).count == 1)
            let cached = try KokoroSynthesizer(parallelism: oneAtATime, optimizedModels: cache)
            let expected = try await plain.synthesize(SynthesisRequest(text: text))
            #expect(expected.count > 24_000)
            #expect(try await cached.synthesize(SynthesisRequest(text: text)) == expected)
        }
    }
}

@Suite(.enabled(if: InstalledModels.piper, InstalledModels.reason))
struct RealPiperOptimizedModelTests {
    @Test func realPiperIsBitExactFromTheCache() async throws {
        try await withCache { cache in
            let voice = try PiperParallelPiecesTests.noiselessVoice()
            let plain = try PiperSynthesizer(modelPath: voice, parallelism: oneAtATime, optimizedModels: nil)
            _ = try PiperSynthesizer(modelPath: voice, parallelism: oneAtATime, optimizedModels: cache)
            #expect(entries(cache).count == 1)
            let cached = try PiperSynthesizer(modelPath: voice, parallelism: oneAtATime, optimizedModels: cache)
            let expected = try await plain.synthesize(SynthesisRequest(text: text))
            #expect(expected.count > 22_050)
            #expect(try await cached.synthesize(SynthesisRequest(text: text)) == expected)
        }
    }
}
