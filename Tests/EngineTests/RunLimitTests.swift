import Foundation
import ChorusPiper
import ChorusSpeech
import Testing

/// Concurrent requests to one engine take turns at its model (its `runLimit`), so they never
/// fight over the cores; each still gets all its audio.
@Suite(.enabled(if: InstalledModels.piper, InstalledModels.reason))
struct RunLimitTests {
    @Test func concurrentPiperRequestsTakeTurnsAtTheModel() async throws {
        // One call at a time, as before pieces ran side by side (with more in flight the limit is that many).
        let piper = try PiperSynthesizer(parallelism: PieceParallelism(inFlight: 1, threadsPerRun: 2))
        let texts = ["One sentence here.", "Another one there.", "And a third."]
        let watcher = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, piper.runLimit.active)
                try? await Task.sleep(for: .milliseconds(1))
            }
            return most
        }
        let together = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for (index, text) in texts.enumerated() {
                group.addTask { (index, try await piper.synthesize(SynthesisRequest(text: text))) }
            }
            var results = [[Float]](repeating: [], count: texts.count)
            for try await (index, samples) in group { results[index] = samples }
            return results
        }
        watcher.cancel()
        #expect(await watcher.value == 1)
        #expect(piper.runLimit.active == 0)
        // Piper draws its durations at random, so lengths vary from call to call; every request gets speech.
        #expect(together.allSatisfy { $0.count > 8_000 })
    }
}
