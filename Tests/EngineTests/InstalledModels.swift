import Foundation
import ChorusKokoro
import ChorusModels
import ChorusPiper
import ChorusSpeech
import ChorusTesting
import Testing

/// Whether `scripts/setup.sh` has installed an engine's default model; tests on real models skip
/// with this reason otherwise (CI installs them, so there they run).
enum InstalledModels {
    static func installed(_ engine: String) -> Bool {
        FileManager.default.fileExists(atPath: ModelStore.current.folder(named: engine).appendingPathComponent(".complete").path)
    }

    static let kokoro = installed("kokoro")
    static let piper = installed("piper")
    static let reason: Comment = "model not installed in $CHORUS_MODELS; run scripts/setup.sh"
}

/// Root mean square of a signal, to tell speech from silence.
func rms(_ samples: [Float]) -> Float {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// The installed models are what their manifests record (sizes; hashing the large files is left to `chorus models`).
@Suite struct InstalledManifestTests {
    @Test(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
    func kokoroMatchesItsManifest() {
        let check = KokoroSynthesizer.manifest.check(folder: ModelStore.current.folder(for: KokoroSynthesizer.manifest))
        #expect(check.isComplete, "\(check)")
        #expect(check.missingOptional.isEmpty)
    }

    @Test(.enabled(if: InstalledModels.piper, InstalledModels.reason))
    func piperMatchesItsManifest() {
        let check = PiperSynthesizer.manifest.check(folder: ModelStore.current.folder(for: PiperSynthesizer.manifest))
        #expect(check.isComplete, "\(check)")
        #expect(check.missingOptional.isEmpty)
    }
}

/// Issue 31, item 3: texts whose phonemes far outnumber their characters, as the probes sent them, and texts that
/// must stay speakable.
enum CostlyTexts {
    static let hebrew = String(String(repeating: "שלום עולם, מה שלומך היום? ", count: 120).prefix(3_000))
    static let emoji = String(repeating: "\u{1F600}", count: 4_096)
    static let prose: String = {
        let paragraph = (try? String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/EngineTests/InstalledModels.swift",
                                                                                     with: "bench/tts_paragraph.txt"), encoding: .utf8)) ?? ""
        return String(String(repeating: paragraph + " ", count: 10).prefix(4_096))
    }()
    static let numbers = String(String(repeating: "In 1984, 12,345 people paid $1,234,567.89 on 03/04/2025 at 10:45; call 5551234567. ",
                                       count: 50).prefix(4_096))

    /// The phonemes per character of `text` when `check` refused it, or nil when it passed.
    static func refusal(_ text: String, _ check: (SynthesisRequest) throws -> Void) throws -> (units: Int, limit: Int)? {
        do {
            try check(SynthesisRequest(text: text))
            return nil
        } catch SpeechError.textTooCostly(_, let units, _, let limit) {
            return (units, limit)
        }
    }

    /// Records an issue unless `stream` ends with a `SpeechError` before its first chunk. It is read no further than
    /// that chunk, and for at most `seconds` (a deadline for a hang, not a pace): with the bound undone, reading
    /// the Hebrew text to its end took a debug build more than 15 minutes.
    static func expectRefusedBeforeAudio(_ stream: AsyncThrowingStream<AudioChunk, any Error>, within seconds: Int = 120,
                                         sourceLocation: SourceLocation = #_sourceLocation) async {
        let outcome: String?
        do {
            outcome = try await withDeadline("the stream's first chunk or its refusal", seconds: Double(seconds)) { () -> String? in
                do {
                    for try await _ in stream { return "audio came before the refusal" }
                    return "the stream ended without a refusal"
                } catch is SpeechError {
                    return nil
                } catch {
                    return "the stream failed with \(error), not a SpeechError"
                }
            }
        } catch {
            outcome = "\(error)"
        }
        if let outcome { Issue.record(Comment(rawValue: outcome), sourceLocation: sourceLocation) }
    }
}
